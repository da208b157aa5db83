// loop-interchange: kernels whose threads walk a column with running indices (moved out of the
// thread loop) and kernels that must keep their per-thread loop (an atomic; a trip count that
// depends on the thread; a break; a running index that is no
// subscript).  Every result is checked against the host.
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <cmath>

// hotspot3D's shape: an early return before the loop, running indices, values carried per thread.
__global__ void column_stencil(const float *in, float *out, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny)
        return;
    int plane = nx * ny;
    int c = j * nx + i;
    int w = i == 0 ? c : c - 1;
    float below = in[c], here = in[c];
    for (int z = 0; z < nz; ++z) {
        float above = z < nz - 1 ? in[c + plane] : here;
        out[c] = 0.5f * here + 0.2f * below + 0.2f * above + 0.1f * in[w];
        below = here;
        here = above;
        c += plane;
        w += plane;
    }
}

// Counting down from a nonzero start, the index decremented: z runs 3..nz-1.
__global__ void column_prefix(const int *in, int *out, int nx, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx)
        return;
    int c = (nz - 1) * nx + i;
    int sum = 0;
    for (int z = 3; z < nz; z++) {
        sum += in[c];
        out[c] = sum;
        c -= nx;
    }
}

// An atomic in the loop: threads are not independent, the loop stays per thread.
__global__ void column_histogram(const int *in, int *bins, int nx, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx)
        return;
    int c = i;
    for (int z = 0; z < nz; ++z) {
        atomicAdd(&bins[in[c] & 7], 1);
        c += nx;
    }
}

// The trip count depends on the thread: the loop stays per thread.
__global__ void ragged_columns(const int *in, int *out, int nx, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx)
        return;
    int c = i;
    int sum = 0;
    for (int z = 0; z < nz - i % 4; ++z) {
        sum += in[c];
        c += nx;
    }
    out[i] = sum;
}

// A break out of the loop: the loop stays per thread.
__global__ void first_negative(const int *in, int *out, int nx, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx)
        return;
    int c = i;
    int at = -1;
    for (int z = 0; z < nz; ++z) {
        if (in[c] < 0) {
            at = z;
            break;
        }
        c += nx;
    }
    out[i] = at;
}

// The running index is never a subscript: nothing to gain, the loop stays per thread.
__global__ void index_sums(int *out, int nx, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx)
        return;
    int c = i;
    int sum = 0;
    for (int z = 0; z < nz; ++z) {
        sum += c;
        c += nx;
    }
    out[i] = sum;
}

// A barrier after the moved loop: the block's column sums meet in shared memory.
__global__ void column_pairs(const int *in, int *out, int pitch, int nz)
{
    __shared__ int sums[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int c = i;
    int sum = 0;
    for (int z = 0; z < nz; ++z) {
        sum += in[c];
        c += pitch;
    }
    sums[threadIdx.x] = sum;
    __syncthreads();
    out[i] = sum - sums[threadIdx.x ^ 1];
}

// hotspot3D's shape: the first plane before the loop, the planes between in it, the last one after
// it, at the running indices' final values (moves: they read in closed form after the loop too).
// With first + 1 >= last the loop runs no iteration and the indices keep their values.
__global__ void column_ends(const int *in, int *out, int nx, int first, int last)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx)
        return;
    int c = first * nx + i;
    int w = i == 0 ? c : c - 1;
    int sum = in[c];
    out[c] = sum;
    c += nx;
    w += nx;
    for (int z = first + 1; z < last; ++z) {
        sum += in[c] - in[w];
        out[c] = sum;
        c += nx;
        w += nx;
    }
    out[c] = 3 * sum + in[w];
}

// column_ends with the loop's bound changed after the loop: the final value cannot be read in
// closed form there, so the loop stays per thread.
__global__ void bound_changed(const int *in, int *out, int nx, int last)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx)
        return;
    int c = i;
    int sum = 0;
    int first = 0;
    for (int z = first; z < last; ++z) {
        sum += in[c];
        c += nx;
    }
    first = 1;
    out[c - first * nx] = sum;
}

static int failures = 0;

static void check(bool ok, const char *what, int at)
{
    if (!ok && failures++ < 10)
        printf("FAIL %s at %d\n", what, at);
}

// lud's shape: a tile product through __shared__ tiles; each thread sums its row of one tile
// times its column of the other (col[ty][k] * row[k][tx]): consecutive threads read a row of
// `row`, each thread alone a column.  Moves (a counter declared before the loop, C89-style);
// every thread's sum keeps its order.
__global__ void tile_product(const float *a, const float *b, float *c, int n)
{
    __shared__ float row[16][16];
    __shared__ float col[16][16];
    int k;
    float sum;
    row[threadIdx.y][threadIdx.x] = b[threadIdx.y * n + blockIdx.x * 16 + threadIdx.x];
    col[threadIdx.y][threadIdx.x] = a[(blockIdx.y * 16 + threadIdx.y) * 16 + threadIdx.x];
    __syncthreads();
    sum = 0;
    for (k = 0; k < 16; k++)
        sum += col[threadIdx.y][k] * row[k][threadIdx.x];
    c[(blockIdx.y * 16 + threadIdx.y) * n + blockIdx.x * 16 + threadIdx.x] = sum;
}

int main()
{
    const int nx = 37, ny = 5, nz = 9, cells = nx * ny * nz;
    float *fin, *fout;
    int *iin, *iout, *bins;
    cudaMallocManaged(&fin, cells * sizeof(float));
    cudaMallocManaged(&fout, cells * sizeof(float));
    cudaMallocManaged(&iin, cells * sizeof(int));
    cudaMallocManaged(&iout, cells * sizeof(int));
    cudaMallocManaged(&bins, 8 * sizeof(int));
    for (int c = 0; c < cells; ++c) {
        fin[c] = (float)((c * 37) % 101) / 7.0f;
        iin[c] = (c * 53) % 29 - (c % 31 == 5 ? 40 : 0);
        fout[c] = -1.0f;
    }
    dim3 block(16, 4), grid((nx + 15) / 16, (ny + 3) / 4);
    column_stencil<<<grid, block>>>(fin, fout, nx, ny, nz);
    cudaDeviceSynchronize();
    for (int z = 0; z < nz; ++z)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                int c = (z * ny + j) * nx + i, w = i == 0 ? c : c - 1;
                float here = fin[c], below = fin[z == 0 ? c : c - nx * ny];
                float above = z < nz - 1 ? fin[c + nx * ny] : here;
                float want = 0.5f * here + 0.2f * below + 0.2f * above + 0.1f * fin[w];
                check(fabsf(fout[c] - want) <= 1e-5f * (1.0f + fabsf(want)), "column_stencil", c);
            }

    for (int c = 0; c < cells; ++c)
        iout[c] = -7;
    column_prefix<<<(nx + 31) / 32, 32>>>(iin, iout, nx, nz);
    cudaDeviceSynchronize();
    for (int i = 0; i < nx; ++i) {
        int sum = 0;
        for (int z = 3; z < nz; ++z) {
            int c = (nz - 1 - (z - 3)) * nx + i;
            sum += iin[c];
            check(iout[c] == sum, "column_prefix", c);
        }
        for (int z = 0; z < 3; ++z)
            check(iout[z * nx + i] == -7, "column_prefix untouched", z * nx + i);
    }

    for (int b = 0; b < 8; ++b)
        bins[b] = 0;
    column_histogram<<<(nx + 31) / 32, 32>>>(iin, bins, nx, nz);
    cudaDeviceSynchronize();
    int want_bins[8] = {};
    for (int c = 0; c < nx * nz; ++c)
        want_bins[iin[c] & 7]++;
    for (int b = 0; b < 8; ++b)
        check(bins[b] == want_bins[b], "column_histogram", b);

    ragged_columns<<<(nx + 31) / 32, 32>>>(iin, iout, nx, nz);
    cudaDeviceSynchronize();
    for (int i = 0; i < nx; ++i) {
        int sum = 0;
        for (int z = 0; z < nz - i % 4; ++z)
            sum += iin[z * nx + i];
        check(iout[i] == sum, "ragged_columns", i);
    }

    first_negative<<<(nx + 31) / 32, 32>>>(iin, iout, nx, nz);
    cudaDeviceSynchronize();
    for (int i = 0; i < nx; ++i) {
        int at = -1;
        for (int z = 0; z < nz; ++z)
            if (iin[z * nx + i] < 0) {
                at = z;
                break;
            }
        check(iout[i] == at, "first_negative", i);
    }
    index_sums<<<(nx + 31) / 32, 32>>>(iout, nx, nz);
    cudaDeviceSynchronize();
    for (int i = 0; i < nx; ++i)
        check(iout[i] == nz * i + nx * nz * (nz - 1) / 2, "index_sums", i);
    const int pitch = 64;
    column_pairs<<<pitch / 32, 32>>>(iin, iout, pitch, 4);
    cudaDeviceSynchronize();
    for (int i = 0; i < pitch; ++i) {
        int mine = 0, other = 0;
        for (int z = 0; z < 4; ++z) {
            mine += iin[z * pitch + i];
            other += iin[z * pitch + (i ^ 1)];
        }
        check(iout[i] == mine - other, "column_pairs", i);
    }
    for (int ends = 0; ends < 2; ++ends) {
        const int first = ends == 0 ? 1 : 5, last = ends == 0 ? nz - 1 : 2;
        for (int c = 0; c < cells; ++c)
            iout[c] = -7;
        column_ends<<<(nx + 31) / 32, 32>>>(iin, iout, nx, first, last);
        cudaDeviceSynchronize();
        int want[9 * 37];
        for (int c = 0; c < nz * nx; ++c)
            want[c] = -7;
        for (int i = 0; i < nx; ++i) {
            int c = first * nx + i, w = i == 0 ? c : c - 1, sum = iin[c];
            want[c] = sum;
            for (c += nx, w += nx; c / nx < last; c += nx, w += nx) {
                sum += iin[c] - iin[w];
                want[c] = sum;
            }
            want[c] = 3 * sum + iin[w];
        }
        for (int c = 0; c < nz * nx; ++c)
            check(iout[c] == want[c], ends == 0 ? "column_ends" : "column_ends (no iteration)", c);
    }
    for (int c = 0; c < cells; ++c)
        iout[c] = -7;
    bound_changed<<<(nx + 31) / 32, 32>>>(iin, iout, nx, nz - 2);
    cudaDeviceSynchronize();
    for (int i = 0; i < nx; ++i) {
        int sum = 0;
        for (int z = 0; z < nz - 2; ++z)
            sum += iin[z * nx + i];
        check(iout[(nz - 3) * nx + i] == sum, "bound_changed", i);
    }
    const int tn = 32, trows = 32;  // a: trows x 16, b: 16 x tn, c: trows x tn
    float *ta, *tb, *tc;
    cudaMallocManaged(&ta, trows * 16 * sizeof(float));
    cudaMallocManaged(&tb, 16 * tn * sizeof(float));
    cudaMallocManaged(&tc, trows * tn * sizeof(float));
    for (int e = 0; e < trows * 16; ++e)
        ta[e] = (float)((e * 29) % 97) / 13.0f - 3.0f;
    for (int e = 0; e < 16 * tn; ++e)
        tb[e] = (float)((e * 41) % 89) / 11.0f - 4.0f;
    tile_product<<<dim3(tn / 16, trows / 16), dim3(16, 16)>>>(ta, tb, tc, tn);
    cudaDeviceSynchronize();
    for (int r = 0; r < trows; ++r)
        for (int col = 0; col < tn; ++col) {
            float sum = 0;
            for (int k = 0; k < 16; k++)
                sum += ta[r * 16 + k] * tb[k * tn + col];
            check(memcmp(&tc[r * tn + col], &sum, sizeof sum) == 0, "tile_product", r * tn + col);
        }
    printf(failures ? "FAILED\n" : "PASS\n");
    return failures != 0;
}
