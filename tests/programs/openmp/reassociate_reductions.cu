// Block tree reductions over __shared__ arrays, the shapes reassociate-reductions recognises and
// some it must leave alone.  `./prog exact` checks every partial sum bit for bit against the tree
// computed on the host in CUDA's order (the translation without --reassociate-reductions);
// `./prog tolerant` checks the float sums within a relative 1e-5 (double: 1e-12) of a double
// reference and everything else exactly (the translation with it).  Prints PASS.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

// The CUDA SDK's shape: tree over blockDim.x, guarded load, one partial per block.
__global__ void sum_sdk(const float *in, float *partial, int n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < unsigned(n)) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

// A constant first stride, the update written out, two loads per thread.
__global__ void sum_double_constant(const double *in, double *partial, int n)
{
    __shared__ double acc[128];
    int tid = threadIdx.x;
    int i = blockIdx.x * 256 + tid;
    double v = 0.0;
    if (i < n) v = in[i];
    if (i + 128 < n) v += in[i + 128];
    acc[tid] = v;
    __syncthreads();
    for (int stride = 64; stride > 0; stride = stride / 2) {
        if (tid < stride) acc[tid] = acc[tid] + acc[stride + tid];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = acc[0];
}

// Signed integers whose partial sums overflow: the sum wraps as the tree's does.
__global__ void sum_int(const int *in, int *partial)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned int s = blockDim.x >> 1; s != 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

// The loop that fills the array does more after its store: the sum is a loop of its own.
__global__ void sum_after_copy(const float *in, float *copy, float *partial)
{
    __shared__ float sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    float v = in[i];
    sdata[tid] = v;
    copy[i] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

// Reads an entry other than the first after the tree: the tree's partial sums are the result,
// so this one stays a tree (bit for bit in both modes).
__global__ void sum_and_second(const float *in, float *partial, float *second)
{
    __shared__ float sdata[256];
    unsigned int tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
    if (tid == 1) second[blockIdx.x] = sdata[1];
}

// The tree in CUDA's order, on the host: entries [0, block) of one block, as the kernels leave them.
template <typename T>
static std::vector<T> host_tree(std::vector<T> v, unsigned first_stride)
{
    for (unsigned s = first_stride; s > 0; s >>= 1)
        for (unsigned t = 0; t < s; ++t)
            v[t] = (T)(v[t] + v[t + s]);
    return v;
}

static bool same_bits(const void *a, const void *b, size_t bytes) { return std::memcmp(a, b, bytes) == 0; }

static int failures = 0;

static void fail(const char *what, int block, double got, double want)
{
    if (++failures <= 10)
        printf("FAIL %s block %d: %.17g, expected %.17g\n", what, block, got, want);
}

// sum_sdk with `threads` per block (a power of two or not) over n floats.
static void check_sdk(int n, int threads, bool exact)
{
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = (float)((i * 37) % 101) * 0.013f - 0.6f + 1e-4f * (float)(i % 7);
    int blocks = (n + threads - 1) / threads;
    float *d_in, *d_partial;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_partial, blocks * sizeof(float));
    cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    sum_sdk<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_partial, n);
    std::vector<float> partial(blocks);
    cudaMemcpy(partial.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    bool power_of_two = (threads & (threads - 1)) == 0;
    for (int b = 0; b < blocks; ++b) {
        std::vector<float> block(threads, 0.0f);
        double reference = 0.0, magnitude = 0.0;
        for (int t = 0; t < threads && b * threads + t < n; ++t) {
            block[t] = in[b * threads + t];
            reference += block[t];
            magnitude += std::fabs(block[t]);
        }
        float tree = host_tree(block, threads / 2)[0];
        // Not a power of two: the tree leaves entries out, and both modes must compute the tree.
        if (exact || !power_of_two) {
            if (!same_bits(&partial[b], &tree, sizeof(float)))
                fail("sum_sdk (tree order)", b, partial[b], tree);
        } else if (std::fabs(partial[b] - reference) > 1e-5 * magnitude) {
            fail("sum_sdk (within 1e-5)", b, partial[b], reference);
        }
    }
    cudaFree(d_in);
    cudaFree(d_partial);
}

static void check_double_constant(int n, bool exact)
{
    std::vector<double> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = std::sin(0.1 * i) * 1e3 + 1e-7 * i;
    int blocks = (n + 255) / 256;
    double *d_in, *d_partial;
    cudaMalloc(&d_in, n * sizeof(double));
    cudaMalloc(&d_partial, blocks * sizeof(double));
    cudaMemcpy(d_in, in.data(), n * sizeof(double), cudaMemcpyHostToDevice);
    sum_double_constant<<<blocks, 128>>>(d_in, d_partial, n);
    std::vector<double> partial(blocks);
    cudaMemcpy(partial.data(), d_partial, blocks * sizeof(double), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) {
        std::vector<double> block(128, 0.0);
        double reference = 0.0, magnitude = 0.0;
        for (int t = 0; t < 128; ++t) {
            int i = b * 256 + t;
            double v = 0.0;
            if (i < n) v = in[i];
            if (i + 128 < n) v += in[i + 128];
            block[t] = v;
            reference += v;
            magnitude += std::fabs(v);
        }
        double tree = host_tree(block, 64)[0];
        if (exact) {
            if (!same_bits(&partial[b], &tree, sizeof(double)))
                fail("sum_double_constant (tree order)", b, partial[b], tree);
        } else if (std::fabs(partial[b] - reference) > 1e-12 * magnitude) {
            fail("sum_double_constant (within 1e-12)", b, partial[b], reference);
        }
    }
    cudaFree(d_in);
    cudaFree(d_partial);
}

static void check_int()
{
    const int blocks = 8, n = blocks * 256;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i % 3 == 0 ? 2000000000 : -7 * i) + (i % 11);
    int *d_in, *d_partial;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_partial, blocks * sizeof(int));
    cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    sum_int<<<blocks, 256>>>(d_in, d_partial);
    std::vector<int> partial(blocks);
    cudaMemcpy(partial.data(), d_partial, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) {
        unsigned wrapped = 0;  // the sum modulo 2^32, as the GPU's additions give it
        for (int t = 0; t < 256; ++t)
            wrapped += (unsigned)in[b * 256 + t];
        if (partial[b] != (int)wrapped)
            fail("sum_int (modulo 2^32)", b, partial[b], (int)wrapped);
    }
    cudaFree(d_in);
    cudaFree(d_partial);
}

static void check_after_copy(bool exact)
{
    const int blocks = 6, n = blocks * 256;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = 0.37f * (float)(i % 29) - 4.1f + 1e-3f * (float)(i % 5);
    float *d_in, *d_copy, *d_partial;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_copy, n * sizeof(float));
    cudaMalloc(&d_partial, blocks * sizeof(float));
    cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    sum_after_copy<<<blocks, 256>>>(d_in, d_copy, d_partial);
    std::vector<float> copy(n), partial(blocks);
    cudaMemcpy(copy.data(), d_copy, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(partial.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    if (!same_bits(copy.data(), in.data(), n * sizeof(float)))
        fail("sum_after_copy copy", 0, 0, 0);
    for (int b = 0; b < blocks; ++b) {
        std::vector<float> block(in.begin() + b * 256, in.begin() + (b + 1) * 256);
        double reference = 0.0, magnitude = 0.0;
        for (float v : block) {
            reference += v;
            magnitude += std::fabs(v);
        }
        float tree = host_tree(block, 128)[0];
        if (exact) {
            if (!same_bits(&partial[b], &tree, sizeof(float)))
                fail("sum_after_copy (tree order)", b, partial[b], tree);
        } else if (std::fabs(partial[b] - reference) > 1e-5 * magnitude) {
            fail("sum_after_copy (within 1e-5)", b, partial[b], reference);
        }
    }
    cudaFree(d_in);
    cudaFree(d_copy);
    cudaFree(d_partial);
}

static void check_second()
{
    const int blocks = 4, n = blocks * 256;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = 0.1f * (float)(i % 13) - 0.55f;
    float *d_in, *d_partial, *d_second;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_partial, blocks * sizeof(float));
    cudaMalloc(&d_second, blocks * sizeof(float));
    cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    sum_and_second<<<blocks, 256>>>(d_in, d_partial, d_second);
    std::vector<float> partial(blocks), second(blocks);
    cudaMemcpy(partial.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(second.data(), d_second, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) {
        std::vector<float> tree = host_tree(std::vector<float>(in.begin() + b * 256, in.begin() + (b + 1) * 256), 128);
        if (!same_bits(&partial[b], &tree[0], sizeof(float)))
            fail("sum_and_second (tree order)", b, partial[b], tree[0]);
        if (!same_bits(&second[b], &tree[1], sizeof(float)))
            fail("sum_and_second second entry", b, second[b], tree[1]);
    }
    cudaFree(d_in);
    cudaFree(d_partial);
    cudaFree(d_second);
}

int main(int argc, char **argv)
{
    bool exact = argc > 1 && std::strcmp(argv[1], "exact") == 0;
    check_sdk(100000, 256, exact);
    check_sdk(5000, 64, exact);
    check_sdk(3000, 96, exact);  // not a power of two: the tree, in both modes
    check_double_constant(50000, exact);
    check_int();
    check_after_copy(exact);
    check_second();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
