// Range guards of many shapes, each checked against a host computation.  The grid never divides
// the problem evenly, so every guard has threads on both sides of it.  Foldable guards become
// thread-loop bounds (guard-folding); the others must keep working as written.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void lt(int *out, int n)                 // i < n
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2 * i + 1;
}

__global__ void le_flipped(int *out, int n)         // n - 1 >= i
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n - 1 >= i) out[i] += 3;
}

__global__ void early_exit(int *out, int n)         // if (i >= n) return;
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n) return;
    out[i] *= 2;
}

__global__ void unsigned_minus(int *out, unsigned n) // tid - 1 < n wraps at tid == 0: not a prefix
{
    unsigned tid = threadIdx.x;
    if (tid - 1 < n) out[blockIdx.x * blockDim.x + tid] = 7;
}

__global__ void signed_minus(int *out, int n)       // int j = threadIdx.x - 1: no wrap, folds
{
    int j = threadIdx.x - 1;
    if (j < n) out[blockIdx.x * blockDim.x + threadIdx.x] = 9;
}

__global__ void two_d(int *out, int rows, int cols) // row from y, col from x, plus a non-foldable term
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && col < cols && (row + col) % 3 != 0) out[row * cols + col] = row - col;
}

__global__ void negative_limit(int *out, int n)     // n may be negative: no thread runs
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = -i;
}

__global__ void unsigned_vs_negative(int *out, int n) // threadIdx.x < n compares unsigned: n = -1 is huge
{
    if (threadIdx.x < n) out[blockIdx.x * blockDim.x + threadIdx.x] = 5;
}

__global__ void limit_from_memory(int *out, const int *limit) // limit read from memory, once per block
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < limit[blockIdx.x]) out[i] = 11;
}

__global__ void two_loads(const int *in, int *out, int n) // guards mid-body: a guard-free version for full blocks
{
    unsigned i = blockIdx.x * 2 * blockDim.x + threadIdx.x;
    int v = 0;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void constant_stride(const int *in, int *out, int n) // blockIdx.x * 192 + tid: unsigned, may wrap as gcc sees it
{
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * 192 + tid;
    int v = 0;
    if (i < n) v = in[i];
    if (i + 96 < n) v -= in[i + 96];
    out[blockIdx.x * blockDim.x + tid] = v;
}

__global__ void conditional_load(const int *in, int *out, int n) // the CUDA SDK's load: a guard in a ?: expression
{
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = (i < unsigned(n)) ? in[i] : 0;
    (void)tid;
}

__global__ void conditional_type(const int *in, int *out, int n) // ?: has the arms' common type (double)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int odd = in[blockIdx.x] & 1;
    int v = (int)((i < n ? in[i] : 0.5) / 2 * 10); // 7 / 2 * 10 = 35 in double, 30 in int
    out[i] = v + ((odd == 1 && i < n) ? 1 : 0);    // a guard and another condition
}

__global__ void limit_stored_first(int *out, int *limit) // the thread stores the limit before reading it
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = 5;
    limit[blockIdx.x] = 0;
    if (i < limit[blockIdx.x]) v = 1;
    out[i] = v + (i < limit[blockIdx.x] ? 10 : 20);
}

__global__ void first_thread(int *out)               // threadIdx.x == 0: a loop over one thread
{
    if (threadIdx.x == 0) out[blockIdx.x] = blockIdx.x + 1;
}

__global__ void block_start_local(int *out, int n)  // the block's first index in a local: int i = start + tid
{
    const int start = blockIdx.x * blockDim.x;
    const int i = start + threadIdx.x;
    if (i < n) out[i] = 4 * i + 1;
}

__global__ void one_row(int *out, int row)          // threadIdx.y == row: the threads from row through row
{
    const int b = blockIdx.x, x = threadIdx.x, y = threadIdx.y;  // launched with 16 x 4 threads
    if (y == row && x < 10)
        out[(b * 4 + y) * 16 + x] = 7 * x + row;
}

__global__ void one_element(int *out, int n)       // i == n - 3: the one thread of the grid at that index
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == n - 3) out[i] = -i;
}

int main()
{
    const int n = 1000, block = 96, grid = (n + block - 1) / block, total = grid * block;
    int *d;
    cudaMallocManaged(&d, total * sizeof(int));
    int *expect = new int[total];
    int failures = 0;
    auto check = [&](const char *what) {
        cudaDeviceSynchronize();
        for (int i = 0; i < total; ++i)
            if (d[i] != expect[i]) {
                printf("%s: out[%d] = %d, expected %d\n", what, i, d[i], expect[i]);
                ++failures;
                break;
            }
    };
    auto reset = [&]() { for (int i = 0; i < total; ++i) d[i] = expect[i] = 100 + i; };

    reset();
    lt<<<grid, block>>>(d, n);
    for (int i = 0; i < n; ++i) expect[i] = 2 * i + 1;
    check("lt");
    le_flipped<<<grid, block>>>(d, n);
    for (int i = 0; i < n; ++i) expect[i] += 3;
    check("le_flipped");
    early_exit<<<grid, block>>>(d, n);
    for (int i = 0; i < n; ++i) expect[i] *= 2;
    check("early_exit");

    reset();
    unsigned_minus<<<grid, block>>>(d, 40u);
    for (int b = 0; b < grid; ++b)
        for (unsigned t = 0; t < (unsigned)block; ++t)
            if (t - 1 < 40u) expect[b * block + t] = 7;
    check("unsigned_minus");

    reset();
    signed_minus<<<grid, block>>>(d, 30);
    for (int b = 0; b < grid; ++b)
        for (int t = 0; t < block; ++t)
            if (t - 1 < 30) expect[b * block + t] = 9;
    check("signed_minus");

    reset();
    const int rows = 21, cols = 45;  // rows * cols <= total
    two_d<<<dim3(3, 3), dim3(16, 8)>>>(d, rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if ((r + c) % 3 != 0) expect[r * cols + c] = r - c;
    check("two_d");

    reset();
    negative_limit<<<grid, block>>>(d, -5);
    check("negative_limit");
    unsigned_vs_negative<<<grid, block>>>(d, -1);
    for (int i = 0; i < total; ++i) expect[i] = 5;
    check("unsigned_vs_negative");

    reset();
    int *limits;
    cudaMallocManaged(&limits, grid * sizeof(int));
    for (int b = 0; b < grid; ++b) limits[b] = b * block + (b * 37) % block;
    limit_from_memory<<<grid, block>>>(d, limits);
    for (int i = 0; i < total; ++i)
        if (i < limits[i / block]) expect[i] = 11;
    check("limit_from_memory");

    reset();
    int *input;
    cudaMallocManaged(&input, n * sizeof(int));
    for (int i = 0; i < n; ++i) input[i] = 3 * i - 1000;
    const int pair_blocks = (n + 2 * block - 1) / (2 * block);
    two_loads<<<pair_blocks, block>>>(input, d, n);
    for (int b = 0; b < pair_blocks; ++b)
        for (int t = 0; t < block; ++t) {
            int i = b * 2 * block + t, v = 0;
            if (i < n) v = input[i];
            if (i + block < n) v += input[i + block];
            expect[b * block + t] = v;
        }
    check("two_loads");
    constant_stride<<<pair_blocks, 96>>>(input, d, n);  // 96 threads, 192 elements per block
    for (int b = 0; b < pair_blocks; ++b)
        for (int t = 0; t < 96; ++t) {
            int i = b * 192 + t, v = 0;
            if (i < n) v = input[i];
            if (i + 96 < n) v -= input[i + 96];
            expect[b * 96 + t] = v;
        }
    check("constant_stride");
    reset();
    conditional_load<<<grid, block>>>(input, d, n);
    for (int i = 0; i < total; ++i) expect[i] = i < n ? input[i] : 0;
    check("conditional_load");
    conditional_type<<<grid, block>>>(input, d, n);
    for (int i = 0; i < total; ++i)
        expect[i] = (int)((i < n ? input[i] : 0.5) / 2 * 10) + (((input[i / block] & 1) == 1 && i < n) ? 1 : 0);
    check("conditional_type");
    for (int b = 0; b < grid; ++b) limits[b] = total;
    limit_stored_first<<<grid, block>>>(d, limits);
    for (int i = 0; i < total; ++i) expect[i] = 25;
    check("limit_stored_first");
    first_thread<<<grid, block>>>(d);
    for (int b = 0; b < grid; ++b) expect[b] = b + 1;
    check("first_thread");
    reset();
    block_start_local<<<grid, block>>>(d, n);
    for (int i = 0; i < n; ++i) expect[i] = 4 * i + 1;
    check("block_start_local");
    reset();
    for (int row = 2; row <= 6; row += 2) {  // rows 4 and 6 are past the blocks' 4 rows: no thread writes
        one_row<<<3, dim3(16, 4)>>>(d, row);
        for (int b = 0; b < 3 && row < 4; ++b)
            for (int x = 0; x < 10; ++x)
                expect[(b * 4 + row) * 16 + x] = 7 * x + row;
    }
    check("one_row");
    reset();
    one_element<<<grid, block>>>(d, n);
    expect[n - 3] = -(n - 3);
    check("one_element");
    cudaFree(input);

    cudaFree(limits);
    cudaFree(d);
    delete[] expect;
    if (failures == 0) printf("PASS\n");
    return failures != 0;
}
