// Inline PTX in __device__ helpers, as libraries wrap it: an overloaded helper (a float and a
// 16-bit form, FlashInfer's ptx_exp2), a template whose immediate operand is a template
// parameter ("n"), a helper reading special registers (which gives it the thread's indices), a
// helper writing through a pointer, and one calling another.  And code under
// `#if defined(__PTX__)`, which nvcc never compiles (clang's host pass defines the device target's
// macros): its alternative is taken, with CUDA's half-precision functions.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>

__device__ __forceinline__ float ptx_exp2(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ half ptx_exp2(half x) {
  unsigned short y;
  asm volatile("ex2.approx.f16 %0, %1;" : "=h"(y) : "h"(__half_as_ushort(x)));
  return __ushort_as_half(y);
}

__device__ __forceinline__ half2 exp2_pair(half2 x) {
#if defined(__PTX__) || defined(__NVPTX__)
  asm volatile("brkpt;");  // not a PTX instruction cuda2cpu translates
  return x;
#else
  return h2exp2(x);
#endif
}

__device__ __forceinline__ half tanh_approx(half x) { return htanh_approx(x); }

template <int pos, int len>
__device__ unsigned field(unsigned v) {
  unsigned r;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(v), "n"(pos), "n"(len));
  return r;
}

__device__ unsigned lane_and_warp() {
  unsigned lane, warp;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("mov.u32 %0, %%warpid;" : "=r"(warp));
  return warp * 100 + lane;
}

__device__ void store_twice(unsigned *p, unsigned v) {
  asm volatile("{ .reg .u32 t; shl.b32 t, %1, 1; st.global.u32 [%0], t; }" :: "l"(p), "r"(v) : "memory");
}

// An operand whose type is a template parameter: a float's bits, an integer's value.
template <typename T>
__device__ unsigned register_bits(T v) {
  unsigned r;
  asm("mov.b32 %0, %1;" : "=r"(r) : "r"(v));
  return r;
}

__device__ unsigned packed_field(unsigned v) { return field<4, 8>(v) | (field<20, 4>(v) << 8); }

__global__ void helpers(float *f, unsigned short *h, unsigned *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = (i - n / 2) * 0.125f;
  f[i] = ptx_exp2(x);
  h[i] = __half_as_ushort(ptx_exp2(__float2half(x * 0.25f)));
  u[3 * i] = packed_field(0x9e3779b9u * (unsigned)i) ^ register_bits(x) ^ register_bits((short)-i);
  u[3 * i + 1] = lane_and_warp();
  store_twice(&u[3 * i + 2], (unsigned)i);
  half2 pair = exp2_pair(__floats2half2_rn(x * 0.5f, -x * 0.5f));
  h[n + 2 * i] = __half_as_ushort(__low2half(pair));
  h[n + 2 * i + 1] = __half_as_ushort(tanh_approx(__high2half(pair)));
}

static unsigned short half_bits(float f) {
  unsigned short h;
  __half v = __float2half(f);
  memcpy(&h, &v, 2);
  return h;
}

int main() {
  const int n = 200, block = 96;
  float *f;
  unsigned short *h;
  unsigned *u;
  cudaMallocManaged(&f, n * sizeof(float));
  cudaMallocManaged(&h, 3 * n * sizeof(unsigned short));
  cudaMallocManaged(&u, 3 * n * sizeof(unsigned));
  helpers<<<(n + block - 1) / block, block>>>(f, h, u, n);
  cudaDeviceSynchronize();
  int failures = 0;
  for (int i = 0; i < n; ++i) {
    float x = (i - n / 2) * 0.125f;
    unsigned v = 0x9e3779b9u * (unsigned)i, t = (unsigned)(i % block);
    unsigned short want_h = half_bits(exp2f(__half2float(__float2half(x * 0.25f))));
    unsigned short want_pair[2] = {half_bits(exp2f(__half2float(__float2half(x * 0.5f)))),
                                   half_bits(tanhf(__half2float(__float2half(exp2f(__half2float(__float2half(-x * 0.5f)))))))};
    unsigned x_bits;
    memcpy(&x_bits, &x, 4);
    unsigned want[3] = {(((v >> 4) & 0xff) | (((v >> 20) & 0xf) << 8)) ^ x_bits ^ (unsigned)(-i),
                        t / 32 * 100 + t % 32, 2u * i};
    if (f[i] != exp2f(x) || h[i] != want_h || u[3 * i] != want[0] || u[3 * i + 1] != want[1] ||
        u[3 * i + 2] != want[2] || h[n + 2 * i] != want_pair[0] || h[n + 2 * i + 1] != want_pair[1]) {
      if (failures++ < 10)
        printf("element %d: %g %#x %#x %u %u, expected %g %#x %#x %u %u\n", i, f[i], h[i], u[3 * i], u[3 * i + 1],
               u[3 * i + 2], exp2f(x), want_h, want[0], want[1], want[2]);
    }
  }
  printf(failures ? "FAIL\n" : "PASS\n");
  return failures != 0;
}
