// clock() in device code, as the samples that wait in a kernel use it ("run for at least
// ms * clockRate cycles"): a cycle counter at the device's clock rate, not the C library's clock()
// (the process's CPU time, which stands still while the thread sleeps).  A thread that sleeps for
// 2 ms sees clock() and clock64() advance by at least 2 ms worth of cycles.
#include <cstdio>
#include <cuda_runtime.h>

// The cycles clock() counts while the thread sleeps for 1 ms (a __device__ function).
__device__ long long cycles_of_a_sleep()
{
    unsigned int start = (unsigned int)clock();
    __nanosleep(1000000);  // 1 ms (CUDA's most)
    return (long long)((unsigned int)clock() - start);
}

__global__ void sleep_and_count(long long *cycles, long long *cycles64, long long *cycles_of_one)
{
    unsigned int start = (unsigned int)clock();
    long long start64 = clock64();
    long long slept = cycles_of_a_sleep();
    __nanosleep(1000000);
    cycles[threadIdx.x] = (long long)((unsigned int)clock() - start);
    cycles64[threadIdx.x] = clock64() - start64;
    cycles_of_one[threadIdx.x] = slept;
}

// Waits as simpleHyperQ's kernels do, in a __device__ function: until clock() has advanced by
// `count` cycles.
__device__ void clock_block(clock_t *waited, clock_t count)
{
    unsigned int start = (unsigned int)clock();
    clock_t offset = 0;
    while (offset < count)
        offset = (clock_t)((unsigned int)clock() - start);
    waited[0] = offset;
}

__global__ void wait_cycles(clock_t *waited, clock_t count) { clock_block(waited, count); }

int main()
{
    int rate_khz = 0;
    cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0);
    long long *cycles, *cycles64, *cycles_of_one;
    clock_t *waited;
    cudaMallocManaged(&cycles, 2 * sizeof(long long));
    cudaMallocManaged(&cycles64, 2 * sizeof(long long));
    cudaMallocManaged(&cycles_of_one, 2 * sizeof(long long));
    cudaMallocManaged(&waited, sizeof(clock_t));
    sleep_and_count<<<1, 2>>>(cycles, cycles64, cycles_of_one);
    clock_t count = 5 * (clock_t)rate_khz;  // 5 ms (the C library's clock() would wait 7.6 s of CPU time)
    wait_cycles<<<1, 1>>>(waited, count);
    cudaDeviceSynchronize();
    long long two_ms = 2LL * rate_khz;
    bool ok = rate_khz > 0 && waited[0] >= count;
    for (int t = 0; t < 2; ++t) {
        printf("thread %d: %lld cycles by clock(), %lld by clock64(), at least %lld expected\n", t, cycles[t],
               cycles64[t], two_ms);
        printf("thread %d: %lld cycles by clock() in a __device__ function over a 1 ms sleep\n", t, cycles_of_one[t]);
        ok = ok && cycles[t] >= two_ms && cycles64[t] >= two_ms && cycles_of_one[t] >= rate_khz;
    }
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
