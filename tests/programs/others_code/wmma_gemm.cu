// mma.h (nvcuda::wmma): small GEMMs with warp matrix fragments, checked against a CPU reference.
// The inputs are small integers (and tf32 values whose low mantissa bits the tensor cores drop),
// so every product and sum is exact and the results must be equal, not close.
#include <mma.h>

#include <cstdio>
#include <vector>

using namespace nvcuda;

// D = alpha * A x B + beta * C with A row-major (m x k), B col-major (k x n), C and D row-major:
// one warp per 16x16 tile of D, two warps per block, operands read from global memory.
__global__ void gemm_global(const half *a, const half *b, const float *c, float *d, int m, int n, int k,
                            float alpha, float beta) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int row = warp / (n / 16) * 16, col = warp % (n / 16) * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  // Value-initialized as HeCBench's wmma writes them, then changed by the calls.
  auto acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>();
  auto fc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>();
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += 16) {
    wmma::load_matrix_sync(fa, a + row * k + kk, k);
    wmma::load_matrix_sync(fb, b + col * k + kk, k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::load_matrix_sync(fc, c + row * n + col, n, wmma::mem_row_major);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] = alpha * acc.x[i] + beta * fc.x[i];
  wmma::store_matrix_sync(d + row * n + col, fc, n, wmma::mem_row_major);
}

// 32x8x16 bf16 tiles staged in shared memory by the warp's lanes, each lane copying every 32nd
// element, and read by load_matrix_sync right after with no __syncwarp (load_matrix_sync waits
// for the whole warp).  The product goes back to shared memory column-major; after __syncwarp
// the lanes copy it out row-major.  Two warps per block, each with its own tiles.
__global__ void gemm_shared(const nv_bfloat16 *a, const nv_bfloat16 *b, float *d) {
  __shared__ nv_bfloat16 a_s[2][32 * 16];
  __shared__ nv_bfloat16 b_s[2][16 * 8];
  __shared__ float d_s[2][32 * 8];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int tile = blockIdx.x * 2 + warp;
  for (int i = lane; i < 32 * 16; i += 32) a_s[warp][i] = a[tile * 32 * 16 + i];
  for (int i = lane; i < 16 * 8; i += 32) b_s[warp][i] = b[tile * 16 * 8 + i];
  wmma::fragment<wmma::matrix_a, 32, 8, 16, nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
  wmma::load_matrix_sync(fa, a_s[warp], 16);
  wmma::load_matrix_sync(fb, b_s[warp], 8);
  wmma::fill_fragment(acc, 1.0f);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(d_s[warp], acc, 32, wmma::mem_col_major);
  __syncwarp();
  for (int i = lane; i < 32 * 8; i += 32) d[tile * 32 * 8 + i] = d_s[warp][(i % 8) * 32 + i / 8];
}

// A 16 x 64 by 64 x 16 product in four k steps, each step's tiles staged in shared memory by the
// lanes and read by load_matrix_sync with no __syncwarp before or after: the load waits for the
// lanes' stores, and every lane has read the tile before any lane stores the next step's.
__global__ void gemm_staged(const half *a, const half *b, float *d) {
  __shared__ half a_s[16 * 16], b_s[16 * 16];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < 64; kk += 16) {
    for (int i = threadIdx.x; i < 256; i += 32) {
      a_s[i] = a[i / 16 * 64 + kk + i % 16];  // row-major 16 x 64
      b_s[i] = b[i / 16 * 64 + kk + i % 16];  // col-major 64 x 16
    }
    wmma::load_matrix_sync(fa, a_s, 16);
    wmma::load_matrix_sync(fb, b_s, 16);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

// 8x32x16 int8 with A col-major and B row-major, int accumulator loaded from memory.
__global__ void gemm_int8(const signed char *a, const signed char *b, const int *c, int *d) {
  wmma::fragment<wmma::matrix_a, 8, 32, 16, signed char, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 32);
  wmma::load_matrix_sync(fc, c, 32, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 32, wmma::mem_row_major);
}

// A half accumulator (D distinct from C), and tf32 operands.
__global__ void gemm_half_and_tf32(const half *a, const half *b, half *d, const float *ta, const float *tb,
                                   float *td) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc, fd;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::fill_fragment(fc, __float2half(0.5f));
  wmma::mma_sync(fd, fa, fb, fc);
  wmma::store_matrix_sync(d, fd, 16, wmma::mem_row_major);

  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ga;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> gb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> gc;
  wmma::load_matrix_sync(ga, ta, 8);
  wmma::load_matrix_sync(gb, tb, 8);
  wmma::fill_fragment(gc, 0.0f);
  wmma::mma_sync(gc, ga, gb, gc);
  wmma::store_matrix_sync(td, gc, 16, wmma::mem_col_major);
}

static int failures = 0;

static void expect(bool ok, const char *what, int i) {
  if (!ok && failures++ < 5) printf("FAIL: %s element %d\n", what, i);
}

int main() {
  // gemm_global: 64 x 32 x 48, 8 warps in 4 blocks.
  const int m = 64, n = 32, k = 48;
  std::vector<half> a(m * k), b(k * n);
  std::vector<float> c(m * n), d(m * n), ref(m * n);
  for (int i = 0; i < m * k; i++) a[i] = __float2half((float)(i % 7 - 3));
  for (int i = 0; i < k * n; i++) b[i] = __float2half((float)(i % 5 - 2));
  for (int i = 0; i < m * n; i++) c[i] = (float)(i % 11);
  for (int r = 0; r < m; r++)
    for (int col = 0; col < n; col++) {
      float sum = 0;
      for (int h = 0; h < k; h++) sum += __half2float(a[r * k + h]) * __half2float(b[col * k + h]);
      ref[r * n + col] = 0.5f * sum + 2.0f * c[r * n + col];
    }
  half *da, *db;
  float *dc, *dd;
  cudaMalloc(&da, a.size() * sizeof(half));
  cudaMalloc(&db, b.size() * sizeof(half));
  cudaMalloc(&dc, c.size() * sizeof(float));
  cudaMalloc(&dd, d.size() * sizeof(float));
  cudaMemcpy(da, a.data(), a.size() * sizeof(half), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(half), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
  gemm_global<<<(m / 16) * (n / 16) / 2, 64>>>(da, db, dc, dd, m, n, k, 0.5f, 2.0f);
  cudaMemcpy(d.data(), dd, d.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < m * n; i++) expect(d[i] == ref[i], "gemm_global", i);

  // gemm_shared: 4 pairs of 32x16 and 16x8 bf16 tiles, 2 blocks of 2 warps.
  const int tiles = 4;
  std::vector<nv_bfloat16> sa(tiles * 32 * 16), sb(tiles * 16 * 8);
  std::vector<float> sd(tiles * 32 * 8);
  for (size_t i = 0; i < sa.size(); i++) sa[i] = __float2bfloat16((float)((int)(i * 7 % 9) - 4));
  for (size_t i = 0; i < sb.size(); i++) sb[i] = __float2bfloat16((float)((int)(i * 3 % 5) - 2));
  nv_bfloat16 *dsa, *dsb;
  float *dsd;
  cudaMalloc(&dsa, sa.size() * sizeof(nv_bfloat16));
  cudaMalloc(&dsb, sb.size() * sizeof(nv_bfloat16));
  cudaMalloc(&dsd, sd.size() * sizeof(float));
  cudaMemcpy(dsa, sa.data(), sa.size() * sizeof(nv_bfloat16), cudaMemcpyHostToDevice);
  cudaMemcpy(dsb, sb.data(), sb.size() * sizeof(nv_bfloat16), cudaMemcpyHostToDevice);
  gemm_shared<<<tiles / 2, 64>>>(dsa, dsb, dsd);
  cudaMemcpy(sd.data(), dsd, sd.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int t = 0; t < tiles; t++)
    for (int r = 0; r < 32; r++)
      for (int col = 0; col < 8; col++) {
        float sum = 1.0f;
        for (int h = 0; h < 16; h++)
          sum += __bfloat162float(sa[t * 512 + r * 16 + h]) * __bfloat162float(sb[t * 128 + h * 8 + col]);
        expect(sd[t * 256 + r * 8 + col] == sum, "gemm_shared", t * 256 + r * 8 + col);
      }

  // gemm_staged: a 16 x 64 row-major matrix by a 64 x 16 col-major one.
  std::vector<half> ga(16 * 64), gb(64 * 16);
  std::vector<float> gd(256);
  for (int i = 0; i < 16 * 64; i++) {
    ga[i] = __float2half((float)(i % 13 - 6));
    gb[i] = __float2half((float)(i % 9 - 4));
  }
  half *dga, *dgb;
  float *dgd;
  cudaMalloc(&dga, ga.size() * sizeof(half));
  cudaMalloc(&dgb, gb.size() * sizeof(half));
  cudaMalloc(&dgd, gd.size() * sizeof(float));
  cudaMemcpy(dga, ga.data(), ga.size() * sizeof(half), cudaMemcpyHostToDevice);
  cudaMemcpy(dgb, gb.data(), gb.size() * sizeof(half), cudaMemcpyHostToDevice);
  gemm_staged<<<1, 32>>>(dga, dgb, dgd);
  cudaMemcpy(gd.data(), dgd, gd.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int r = 0; r < 16; r++)
    for (int col = 0; col < 16; col++) {
      float sum = 0.0f;
      for (int h = 0; h < 64; h++) sum += __half2float(ga[r * 64 + h]) * __half2float(gb[col * 64 + h]);
      expect(gd[r * 16 + col] == sum, "gemm_staged", r * 16 + col);
    }

  // gemm_int8: A 8x16 col-major, B 16x32 row-major, C 8x32.
  std::vector<signed char> ia(8 * 16), ib(16 * 32);
  std::vector<int> ic(8 * 32), id(8 * 32);
  for (int i = 0; i < 8 * 16; i++) ia[i] = (signed char)(i * 37 % 255 - 127);
  for (int i = 0; i < 16 * 32; i++) ib[i] = (signed char)(i * 53 % 255 - 127);
  for (int i = 0; i < 8 * 32; i++) ic[i] = i * 1000 - 100000;
  signed char *dia, *dib;
  int *dic, *did;
  cudaMalloc(&dia, ia.size());
  cudaMalloc(&dib, ib.size());
  cudaMalloc(&dic, ic.size() * sizeof(int));
  cudaMalloc(&did, id.size() * sizeof(int));
  cudaMemcpy(dia, ia.data(), ia.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(dib, ib.data(), ib.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(dic, ic.data(), ic.size() * sizeof(int), cudaMemcpyHostToDevice);
  gemm_int8<<<1, 32>>>(dia, dib, dic, did);
  cudaMemcpy(id.data(), did, id.size() * sizeof(int), cudaMemcpyDeviceToHost);
  for (int r = 0; r < 8; r++)
    for (int col = 0; col < 32; col++) {
      int sum = ic[r * 32 + col];
      for (int h = 0; h < 16; h++) sum += ia[h * 8 + r] * ib[h * 32 + col];
      expect(id[r * 32 + col] == sum, "gemm_int8", r * 32 + col);
    }

  // gemm_half_and_tf32.
  std::vector<half> ha(256), hb(256), hd(256);
  std::vector<float> ta(16 * 8), tb(8 * 16), td(256);
  for (int i = 0; i < 256; i++) {
    ha[i] = __float2half((float)(i % 5 - 2));
    hb[i] = __float2half((float)(i % 3 - 1));
  }
  const float low_bits = 1.0f / 4096.0f;  // below tf32's 10 mantissa bits: dropped
  for (int i = 0; i < 16 * 8; i++) {
    ta[i] = (float)(i % 9 - 4) * (1.0f + low_bits);
    tb[i] = (float)(i % 7 - 3) * (1.0f + low_bits / 2.0f);
  }
  half *dha, *dhb, *dhd;
  float *dta, *dtb, *dtd;
  cudaMalloc(&dha, 256 * sizeof(half));
  cudaMalloc(&dhb, 256 * sizeof(half));
  cudaMalloc(&dhd, 256 * sizeof(half));
  cudaMalloc(&dta, ta.size() * sizeof(float));
  cudaMalloc(&dtb, tb.size() * sizeof(float));
  cudaMalloc(&dtd, td.size() * sizeof(float));
  cudaMemcpy(dha, ha.data(), 256 * sizeof(half), cudaMemcpyHostToDevice);
  cudaMemcpy(dhb, hb.data(), 256 * sizeof(half), cudaMemcpyHostToDevice);
  cudaMemcpy(dta, ta.data(), ta.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dtb, tb.data(), tb.size() * sizeof(float), cudaMemcpyHostToDevice);
  gemm_half_and_tf32<<<1, 32>>>(dha, dhb, dhd, dta, dtb, dtd);
  cudaMemcpy(hd.data(), dhd, 256 * sizeof(half), cudaMemcpyDeviceToHost);
  cudaMemcpy(td.data(), dtd, td.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int r = 0; r < 16; r++)
    for (int col = 0; col < 16; col++) {
      float sum = 0.5f;
      for (int h = 0; h < 16; h++) sum += __half2float(ha[r * 16 + h]) * __half2float(hb[h * 16 + col]);
      expect(__half2float(hd[r * 16 + col]) == sum, "gemm_half", r * 16 + col);
      float tsum = 0.0f;
      for (int h = 0; h < 8; h++) tsum += (float)((r * 8 + h) % 9 - 4) * (float)((col * 8 + h) % 7 - 3);
      expect(td[col * 16 + r] == tsum, "gemm_tf32", col * 16 + r);
    }
  if (wmma::__float_to_tf32(1.0f + 3.0f * low_bits) != 1.0f + 2.0f * low_bits * 2.0f ||
      wmma::__float_to_tf32(1.0f + low_bits) != 1.0f)
    expect(false, "__float_to_tf32", 0);

  if (failures) return 1;
  printf("PASS\n");
  return 0;
}
