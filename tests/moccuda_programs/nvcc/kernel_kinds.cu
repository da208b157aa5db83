// Built with nvcc -cudart shared; run on the CPU under `moccuda run` with the kernel library
// `cuda2cpu --emit=kernel-library` builds from this file.  Kernels and variables of each kind
// nvcc registers under its own name: a template launched here and one explicitly instantiated
// (launched only from a host template), a non-type template argument, a namespace, extern "C",
// an anonymous namespace (nvcc names it after the file); dynamic shared memory; __constant__ and
// __device__ variables with initializers, static and namespaced, read and written through the
// symbol API; a __managed__ variable with an initializer that the host reads directly.  Host code
// (with an initializer that prints) stays out of the kernel library.
#include <cstdio>

static int say_started()
{
    printf("host initializer\n");
    return 1;
}
static int started = say_started();  // runs once, in the program (never in the kernel library)

__constant__ float scale_by[2] = {2.0f, 3.0f};
static __device__ int launches;
__managed__ int managed_total = 7;  // the host reads it directly, through nvcc's managed pointer

namespace ops {
__device__ int bias = 10;

template <class T>
__global__ void scale(T *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = data[i] * (T)scale_by[0] + (T)bias;
}

template <int Shift>
__global__ void shift_left(unsigned *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] <<= Shift;
}
}  // namespace ops

template __global__ void ops::scale<double>(double *, int);

// Never instantiated: the kernel library has no entry point for it, and cuda2cpu warns.
template <class T>
__global__ void unused_template(T *data) { data[threadIdx.x] = T(); }

extern "C" __global__ void reverse_blocks(int *data)
{
    extern __shared__ int tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = data[i];
    __syncthreads();
    data[i] = tile[blockDim.x - 1 - threadIdx.x];
    if (threadIdx.x == 0)
        atomicAdd(&launches, 1);
}

namespace {
__global__ void count_launch()
{
    atomicAdd(&launches, 1);
    atomicAdd(&managed_total, 1);
}
}  // namespace

template <class T>
void run_scale(T *data, int n)
{
    ops::scale<T><<<(n + 127) / 128, 128>>>(data, n);
}

int main()
{
    const int n = 1024;
    double *d;
    float *f;
    unsigned *u;
    int *r;
    cudaMallocManaged(&d, n * sizeof(double));
    cudaMallocManaged(&f, n * sizeof(float));
    cudaMallocManaged(&u, n * sizeof(unsigned));
    cudaMallocManaged(&r, n * sizeof(int));
    for (int i = 0; i < n; ++i) {
        d[i] = i;
        f[i] = i;
        u[i] = i;
        r[i] = i;
    }
    run_scale(d, n);
    ops::scale<float><<<(n + 127) / 128, 128>>>(f, n);
    ops::shift_left<3><<<(n + 255) / 256, 256>>>(u, n);
    reverse_blocks<<<n / 256, 256, 256 * sizeof(int)>>>(r);
    count_launch<<<1, 1>>>();
    cudaError_t launched = cudaGetLastError();
    cudaDeviceSynchronize();

    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        wrong += d[i] != 2.0 * i + 10 || f[i] != 2.0f * i + 10 || u[i] != (unsigned)i << 3;
        wrong += r[i] != (i / 256) * 256 + 255 - i % 256;
    }
    int count = 0, bias = 0;
    float factors[2] = {0, 0};
    cudaMemcpyFromSymbol(&count, launches, sizeof count);
    cudaMemcpyFromSymbol(&bias, ops::bias, sizeof bias);
    cudaMemcpyFromSymbol(factors, scale_by, sizeof factors);
    size_t size = 0;
    cudaGetSymbolSize(&size, scale_by);

    // A new bias, through the symbol's address, reaches the next launch.
    int *bias_at = nullptr, next_bias = -1;
    cudaGetSymbolAddress((void **)&bias_at, ops::bias);
    cudaMemcpy(bias_at, &next_bias, sizeof next_bias, cudaMemcpyHostToDevice);
    ops::scale<float><<<(n + 127) / 128, 128>>>(f, n);
    cudaDeviceSynchronize();
    int rescaled_wrong = 0;
    for (int i = 0; i < n; ++i)
        rescaled_wrong += f[i] != 2.0f * (2.0f * i + 10) - 1;

    printf("launch %s, %d wrong, launches %d, bias %d, factors %g %g, size %zu, rescaled %d wrong, managed %d\n",
           cudaGetErrorName(launched), wrong, count, bias, factors[0], factors[1], size, rescaled_wrong,
           managed_total);
    bool ok = started == 1 && launched == cudaSuccess && wrong == 0 && count == 5 && bias == 10 && factors[0] == 2 && factors[1] == 3
              && size == sizeof factors && rescaled_wrong == 0 && managed_total == 8;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return 0;
}
