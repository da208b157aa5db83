// #define and #undef written inside kernel bodies take effect in the kernel from where they
// stand and in the host code after the kernel, as the preprocessor gives them; those in a branch
// of #if that is not taken have no effect.
#include <cstdio>
#include <cuda_runtime.h>

#define FACTOR 1
#define GONE 5

__global__ void scale(int *p)
{
#undef FACTOR
#define FACTOR 7
#define ELEMENT double
    p[threadIdx.x] = FACTOR * threadIdx.x + (int)sizeof(ELEMENT) - 8;
#if 0
#define NEVER 1
#else
#define TAKEN 2
#endif
#undef GONE
}

__device__ int twice(int v)
{
#define HELPER_OFFSET 3
    return 2 * v + HELPER_OFFSET + threadIdx.x * 0;
}

// Inlined into the kernel (it synchronizes): its text is replaced by a comment.
__device__ void sync_then_store(int *buf, int v)
{
    __syncthreads();
#define STORED 4 /* a comment
                    over two lines */
    buf[threadIdx.x] = v + STORED; // #define COMMENTED 1
    /*
#define COMMENTED 2
    */
}

__global__ void offset(int *p)
{
    sync_then_store(p, twice(threadIdx.x));
}

int main()
{
    int *d, h[32];
    cudaMalloc(&d, 32 * sizeof(int));
    scale<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (FACTOR != 7 || h[1] != 7) {
        printf("FAIL %d %d\n", FACTOR, h[1]);
        return 1;
    }
#if defined(NEVER) || !defined(TAKEN) || defined(GONE) || !defined(HELPER_OFFSET) || defined(COMMENTED)
    printf("FAIL: macros after the kernels\n");
    return 1;
#endif
    offset<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (h[2] != 2 * 2 + HELPER_OFFSET + TAKEN - 2 + STORED || STORED != 4) {
        printf("FAIL: offset %d\n", h[2]);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
