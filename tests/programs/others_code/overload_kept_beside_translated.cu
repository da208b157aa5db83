// An overload set where one overload must be translated (its device assert names the block and
// the thread, so it takes them as parameters) and another holds what the translator does not
// represent (a local anonymous union sized by a local constant), but reads no thread index.  The
// second is kept as written, with the same leading parameters, so every call of the set passes
// them.  vLLM's paged attention: zero(T &) through a union, zero(__nv_bfloat16 &) asserting on
// older GPUs.
#include <cassert>
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

struct Pair { float a, b; };

template <typename T>
__device__ void clear(T &dst)
{
    constexpr int WORDS = sizeof(T) / 4;
    union {
        T raw;
        uint32_t words[WORDS];
    } tmp;
    for (int i = 0; i < WORDS; ++i)
        tmp.words[i] = 0u;
    dst = tmp.raw;
}

__device__ void clear(int &dst)
{
    assert(dst != -1);  // reads blockIdx and threadIdx when it fails
    dst = 0;
}

__global__ void clear_all(Pair *pairs, int *ints)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    Pair p = pairs[i];
    clear(p);
    pairs[i] = p;
    clear(ints[i]);
}

int main()
{
    const int n = 256;
    Pair *pairs;
    int *ints;
    cudaMallocManaged(&pairs, n * sizeof(Pair));
    cudaMallocManaged(&ints, n * sizeof(int));
    for (int i = 0; i < n; ++i) {
        pairs[i] = {1.0f + i, 2.0f * i};
        ints[i] = i + 1;
    }
    clear_all<<<n / 64, 64>>>(pairs, ints);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < n; ++i)
        bad += pairs[i].a != 0.0f || pairs[i].b != 0.0f || ints[i] != 0;
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
