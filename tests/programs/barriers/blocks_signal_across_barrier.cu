// Blocks that signal each other through global memory, with __syncthreads() between the block's
// accesses and the signal.  The barrier orders no two threads of the block (they touch different
// locations), but it makes every thread's access happen before thread 0 signals the next block
// (or after thread 0 has waited for the previous one): it must stay.
//
// move_up shifts an array up by SHIFT in place, chunk by chunk from the top, as Chai's padding
// does: task c loads its chunk, then lets task c + 1 store, whose stores land on what task c
// loads.  Task c + 1 may store only once every thread of task c has loaded.  The blocks take
// their tasks in the reverse of their order (block b does task nblocks - 1 - b), so a block run
// earlier waits for one run later.  Each thread works a while before its load (work() leaves the
// value as it is), so that a signal sent before the block's last load is seen in time.
#include <cstdio>
#include <cuda_runtime.h>

#define CHUNK 256
#define SHIFT 100

__device__ float work(float v)
{
    float w = 0.0f;
    for (int k = 0; k < 2000; ++k)
        w += sinf(k * 0.001f + v);
    return w > 1e30f ? 0.0f : v;  // w stays below 2000
}

__global__ void move_up(float *data, int *flags, int n)
{
    int task = gridDim.x - 1 - blockIdx.x;
    int first = n - (task + 1) * CHUNK;
    int i = first + threadIdx.x;
    float v = work(data[i]);
    __syncthreads();
    if (threadIdx.x == 0) {
        while (atomicAdd(&flags[task], 0) == 0) {
        }
        atomicAdd(&flags[task + 1], 1);
    }
    __syncthreads();
    data[i + SHIFT] = v;
}

// The same chain through volatile flags (legacy code).
__global__ void move_up_volatile(float *data, volatile int *flags, int n)
{
    int task = gridDim.x - 1 - blockIdx.x;
    int first = n - (task + 1) * CHUNK;
    int i = first + threadIdx.x;
    float v = work(data[i]);
    __syncthreads();
    if (threadIdx.x == 0) {
        while (flags[task] == 0) {
        }
        flags[task + 1] = 1;
    }
    __syncthreads();
    data[i + SHIFT] = v;
}

// A barrier with nothing other blocks see before it and only an atomic after it orders nothing.
__global__ void count_after_private_work(int *count)
{
    int v = threadIdx.x * 2;
    __syncthreads();
    if (v % 4 == 0)
        atomicAdd(count, 1);
}

static int check(const char *name, const float *got, const float *init, int n)
{
    for (int i = 0; i < n + SHIFT; ++i) {
        float want = i < SHIFT ? init[i] : init[i - SHIFT];
        if (got[i] != want) {
            printf("FAIL: %s[%d] = %g, expected %g\n", name, i, got[i], want);
            return 1;
        }
    }
    printf("%s ok\n", name);
    return 0;
}

int main()
{
    const int blocks = 16, n = blocks * CHUNK;
    static float init[blocks * CHUNK + SHIFT], got[blocks * CHUNK + SHIFT];
    for (int i = 0; i < n + SHIFT; ++i)
        init[i] = (float)(i * 7 % 1000) + 0.5f;
    float *data;
    int *flags;
    cudaMalloc(&data, sizeof(init));
    cudaMalloc(&flags, (blocks + 1) * sizeof(int));
    int bad = 0;
    for (int round = 0; round < 4; ++round) {
        cudaMemcpy(data, init, sizeof(init), cudaMemcpyHostToDevice);
        cudaMemset(flags, 0, (blocks + 1) * sizeof(int));
        int one = 1;
        cudaMemcpy(flags, &one, sizeof(int), cudaMemcpyHostToDevice);
        if (round % 2 == 0)
            move_up<<<blocks, CHUNK>>>(data, flags, n);
        else
            move_up_volatile<<<blocks, CHUNK>>>(data, flags, n);
        cudaMemcpy(got, data, sizeof(got), cudaMemcpyDeviceToHost);
        bad |= check(round % 2 == 0 ? "move_up" : "move_up_volatile", got, init, n);
        if (bad)
            break;
    }
    int *count, counted;
    cudaMalloc(&count, sizeof(int));
    cudaMemset(count, 0, sizeof(int));
    count_after_private_work<<<2, 64>>>(count);
    cudaMemcpy(&counted, count, sizeof(int), cudaMemcpyDeviceToHost);
    if (counted != 64) {
        printf("FAIL: count %d, expected 64\n", counted);
        bad = 1;
    }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
