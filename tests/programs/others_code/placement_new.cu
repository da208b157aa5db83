// Placement new in device code: objects constructed in __shared__ storage (read by another thread
// after a barrier), in a thread's own local buffer, with braces, of a built-in type (through
// ::new), with no initializer, and in a kernel template.
#include <cstdio>
#include <new>

struct Acc {
    float sum;
    int n;
    __device__ Acc(float s, int m) : sum(s), n(m) {}
    __device__ void add(float v) { sum += v; ++n; }
};

struct Pair {
    int a, b;
};

struct Counter {
    int hits = 7;  // a default member initializer: value-initialized storage holds 7
};

#define BLOCK 64

__global__ void in_shared(const float *in, float *out)
{
    __shared__ __align__(16) unsigned char raw[sizeof(Acc) * BLOCK];
    Acc *mine = new (raw + sizeof(Acc) * threadIdx.x) Acc(in[threadIdx.x], 1);
    mine->add(1.0f);
    __syncthreads();
    const Acc *next = reinterpret_cast<const Acc *>(raw) + (threadIdx.x + 1) % BLOCK;
    out[threadIdx.x] = next->sum * next->n;
}

__global__ void in_locals(int *out)
{
    alignas(Pair) unsigned char local[sizeof(Pair)];
    Pair *p = new (local) Pair{(int)threadIdx.x, 3};
    alignas(int) unsigned char word[sizeof(int)];
    int *w = ::new (word) int(10);
    alignas(Counter) unsigned char counter[sizeof(Counter)];
    Counter *c = new (counter) Counter;
    out[threadIdx.x] = p->a * p->b + *w + c->hits;
}

template <class T>
__global__ void typed(T *out)
{
    alignas(T) unsigned char storage[sizeof(T)];
    T *v = new (storage) T(static_cast<T>(threadIdx.x) / 2);
    out[threadIdx.x] = *v;
}

int main()
{
    float *in, *out, *half;
    int *ints;
    cudaMallocManaged(&in, BLOCK * sizeof(float));
    cudaMallocManaged(&out, BLOCK * sizeof(float));
    cudaMallocManaged(&half, BLOCK * sizeof(float));
    cudaMallocManaged(&ints, BLOCK * sizeof(int));
    for (int i = 0; i < BLOCK; ++i) in[i] = i * 0.5f;
    in_shared<<<1, BLOCK>>>(in, out);
    in_locals<<<1, BLOCK>>>(ints);
    typed<float><<<1, BLOCK>>>(half);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int t = 0; t < BLOCK; ++t) {
        float want = (in[(t + 1) % BLOCK] + 1.0f) * 2;
        if (out[t] != want && bad++ < 5) printf("in_shared %d: %g, expected %g\n", t, out[t], want);
        if (ints[t] != t * 3 + 17 && bad++ < 5) printf("in_locals %d: %d, expected %d\n", t, ints[t], t * 3 + 17);
        if (half[t] != t / 2.0f && bad++ < 5) printf("typed %d: %g, expected %g\n", t, half[t], t / 2.0f);
    }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
