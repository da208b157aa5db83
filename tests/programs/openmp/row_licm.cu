// Work that no index along a block's rows reaches (pass row-licm): the kernels' results against
// the same arithmetic on the host, with guards that select whole rows of threads.
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE 16

// Rodinia backprop's tree over rows: a power of two from a call, and a row guard by remainder.
__global__ void tree_rows(const float *in, float *out)
{
    __shared__ float m[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    m[ty][tx] = in[(blockIdx.x * TILE + ty) * TILE + tx];
    __syncthreads();
    for (int i = 1; i <= 4; i++) {
        int power_two = __powf(2, i);
        if (ty % power_two == 0)
            m[ty][tx] = m[ty][tx] + m[ty + power_two / 2][tx];
        __syncthreads();
    }
    if (ty == 0)
        out[blockIdx.x * TILE + tx] = m[0][tx];
}

// Both branches of a row guard, which guard-folding cannot fold (not affine in the index).
__global__ void both_branches(int *out, int shift)
{
    int row = threadIdx.y;
    int square = row * row + shift;
    int at = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if (square % 3 == 1)
        out[at] = 100 + threadIdx.x;
    else
        out[at] = -(int)threadIdx.x;
}

// A store before a row guard without else: rows that fail the guard still store.
__global__ void store_before(int *first, int *second, int divisor)
{
    int at = threadIdx.y * blockDim.x + threadIdx.x;
    first[at] = at;
    int part = (int)threadIdx.y / divisor;
    if (part % 2 == 0)
        second[at] = 7 * at;
}

// A 3-D block: the row is (z, y), and the guard reads both.
__global__ void planes(float *out)
{
    int plane_row = threadIdx.z * 8 + threadIdx.y;
    float scale = sqrtf((float)(plane_row + 1));
    int at = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if (plane_row % 3 != 2)
        out[at] = scale * threadIdx.x;
}

// Memory indexed with unit stride along threadIdx.y: thread-order runs y innermost, and the
// row is a column of the block, its guard on threadIdx.x.
__global__ void columns(int *out, int modulus)
{
    int column = threadIdx.x;
    int picked = (column * 7) % modulus;
    if (picked < 3)
        out[threadIdx.x * blockDim.y + threadIdx.y] = picked * 100 + threadIdx.y;
}

// Guards row-licm must leave per thread: one read from memory, one on a variable the loop
// changes, and one under bounds folded along the rows' own dimension.
__global__ void per_thread(const int *flags, int *out, int n)
{
    int at = threadIdx.y * blockDim.x + threadIdx.x;
    int step = threadIdx.y % 4;
    if (flags[threadIdx.y])
        out[at] += 1;
    step += threadIdx.x;
    if (step % 2 == 0)
        out[at] += 10;
}

__global__ void bounded_rows(int *out, int n, int divisor)
{
    if (threadIdx.x < n) {
        int q = (int)threadIdx.y / divisor;
        if (q % 2 == 1)
            out[threadIdx.y * blockDim.x + threadIdx.x] = q;
    }
}

static int check(const char *what, bool ok)
{
    if (!ok)
        printf("FAIL %s\n", what);
    return ok ? 0 : 1;
}

int main()
{
    int failures = 0;

    const int blocks = 5;
    float *in, *sums;
    cudaMallocManaged(&in, sizeof(float) * blocks * TILE * TILE);
    cudaMallocManaged(&sums, sizeof(float) * blocks * TILE);
    for (int i = 0; i < blocks * TILE * TILE; i++)
        in[i] = (float)((i * 37) % 29);
    tree_rows<<<blocks, dim3(TILE, TILE)>>>(in, sums);
    cudaDeviceSynchronize();
    bool same = true;
    for (int b = 0; b < blocks; b++)
        for (int x = 0; x < TILE; x++) {
            float sum = 0;  // small integers: every order of the sum is exact
            for (int y = 0; y < TILE; y++)
                sum += in[(b * TILE + y) * TILE + x];
            same &= sums[b * TILE + x] == sum;
        }
    failures += check("tree_rows", same);

    int *out;
    const int bx = 8, by = 6;
    cudaMallocManaged(&out, sizeof(int) * 3 * bx * by);
    both_branches<<<3, dim3(bx, by)>>>(out, 2);
    cudaDeviceSynchronize();
    same = true;
    for (int b = 0; b < 3; b++)
        for (int y = 0; y < by; y++)
            for (int x = 0; x < bx; x++)
                same &= out[(b * by + y) * bx + x] == ((y * y + 2) % 3 == 1 ? 100 + x : -x);
    failures += check("both_branches", same);

    int *first, *second;
    cudaMallocManaged(&first, sizeof(int) * bx * by);
    cudaMallocManaged(&second, sizeof(int) * bx * by);
    for (int i = 0; i < bx * by; i++)
        first[i] = second[i] = -1;
    store_before<<<1, dim3(bx, by)>>>(first, second, 2);
    cudaDeviceSynchronize();
    same = true;
    for (int y = 0; y < by; y++)
        for (int x = 0; x < bx; x++) {
            int at = y * bx + x;
            same &= first[at] == at && second[at] == ((y / 2) % 2 == 0 ? 7 * at : -1);
        }
    failures += check("store_before", same);

    float *plane_out;
    cudaMallocManaged(&plane_out, sizeof(float) * 4 * 8 * 3);
    for (int i = 0; i < 4 * 8 * 3; i++)
        plane_out[i] = -1.0f;
    planes<<<1, dim3(4, 8, 3)>>>(plane_out);
    cudaDeviceSynchronize();
    same = true;
    for (int z = 0; z < 3; z++)
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 4; x++) {
                int r = z * 8 + y;
                float expect = r % 3 != 2 ? sqrtf((float)(r + 1)) * x : -1.0f;
                same &= plane_out[(z * 8 + y) * 4 + x] == expect;
            }
    failures += check("planes", same);

    int *cells;
    cudaMallocManaged(&cells, sizeof(int) * bx * by);
    for (int i = 0; i < bx * by; i++)
        cells[i] = -1;
    columns<<<1, dim3(bx, by)>>>(cells, 5);
    cudaDeviceSynchronize();
    same = true;
    for (int x = 0; x < bx; x++)
        for (int y = 0; y < by; y++)
            same &= cells[x * by + y] == ((x * 7) % 5 < 3 ? (x * 7) % 5 * 100 + y : -1);
    failures += check("columns", same);

    int *flags, *counts;
    cudaMallocManaged(&flags, sizeof(int) * by);
    cudaMallocManaged(&counts, sizeof(int) * bx * by);
    for (int y = 0; y < by; y++)
        flags[y] = y % 2;
    for (int i = 0; i < bx * by; i++)
        counts[i] = 0;
    per_thread<<<1, dim3(bx, by)>>>(flags, counts, bx);
    cudaDeviceSynchronize();
    same = true;
    for (int y = 0; y < by; y++)
        for (int x = 0; x < bx; x++)
            same &= counts[y * bx + x] == (y % 2) + ((y % 4 + x) % 2 == 0 ? 10 : 0);
    failures += check("per_thread", same);

    for (int i = 0; i < bx * by; i++)
        counts[i] = -1;
    bounded_rows<<<1, dim3(bx, by)>>>(counts, 5, 2);
    cudaDeviceSynchronize();
    same = true;
    for (int y = 0; y < by; y++)
        for (int x = 0; x < bx; x++)
            same &= counts[y * bx + x] == (x < 5 && (y / 2) % 2 == 1 ? y / 2 : -1);
    failures += check("bounded_rows", same);

    if (failures == 0)
        printf("PASS\n");
    return failures;
}
