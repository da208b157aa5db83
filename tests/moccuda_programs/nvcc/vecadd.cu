// Built with nvcc -cudart shared; run on the CPU under `moccuda run` with the kernel library
// `cuda2cpu --emit=kernel-library -DWITHOUT_MISSING_KERNEL` builds from this file.
#include <cstdio>

__global__ void vadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

#ifdef WITHOUT_MISSING_KERNEL  // (the kernel library's build): `missing` has no CPU implementation
__global__ void missing(int *out);
#else
__global__ void missing(int *out) { *out = 1; }
#endif

int main(int argc, char **argv)
{
    const int n = 1000;
    float *a, *b, *c;
    cudaMallocManaged(&a, n * sizeof(float));
    cudaMallocManaged(&b, n * sizeof(float));
    cudaMallocManaged(&c, n * sizeof(float));
    for (int i = 0; i < n; ++i) {
        a[i] = i;
        b[i] = 2 * i;
        c[i] = -1;
    }
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    vadd<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
    cudaError_t launched = cudaGetLastError();
    cudaStreamSynchronize(stream);
    int bad = 0;
    for (int i = 0; i < n; ++i)
        bad += c[i] != 3.0f * i;
    printf("vadd: %s, %d wrong\n", cudaGetErrorName(launched), bad);
    if (argc > 1) {  // also launch the kernel the library lacks
        missing<<<1, 1>>>(nullptr);
        printf("missing: %s\n", cudaGetErrorName(cudaGetLastError()));
    }
    printf("%s\n", bad == 0 && launched == cudaSuccess ? "PASS" : "FAIL");
    return 0;
}
