// Declarations in the conditions of while and if in device code: a loop over a list until the
// next item is 0 (with a continue that declares the variable again), a pointer declared in an if
// with an else, a class type converting to bool, and C++17's if with an initializer statement
// (before a condition, and before a declared condition), before a barrier.
#include <cstdio>

#define BLOCK 32

struct Cursor {
    const int *items;
    int at, end;
    __device__ explicit operator bool() const { return at < end; }
};

__device__ int item(const int *items, int i) { return i < 12 ? items[i] : 0; }

__global__ void walk(const int *items, int *out)
{
    __shared__ int sums[BLOCK];
    int i = threadIdx.x % 4, sum = 0;
    while (int v = item(items, i++)) {
        if (v % 5 == 0)
            continue;  // the next iteration declares v again from the next item
        sum += v;
    }
    if (const int *first = threadIdx.x % 2 ? items : nullptr)
        sum += 100 * first[0];
    else
        sum -= 1;
    Cursor c{items, (int)threadIdx.x % 3, 6};
    while (Cursor left = c) {
        sum += 1000 * left.items[left.at];
        ++c.at;
    }
    if (int x = item(items, threadIdx.x % 12) - 3; x > 0)  // C++17: an initializer, then the condition
        sum += 10000 * x;
    if (int a = item(items, threadIdx.x % 12); int b = a - 2)
        sum += 100000 * b;
    else
        sum -= 2;
    sums[threadIdx.x] = sum;
    __syncthreads();
    out[threadIdx.x] = sums[(threadIdx.x + 1) % BLOCK];
}

int main()
{
    int *items, *out;
    cudaMallocManaged(&items, 12 * sizeof(int));
    cudaMallocManaged(&out, BLOCK * sizeof(int));
    for (int i = 0; i < 12; ++i) items[i] = i == 9 ? 0 : i + 1;  // the list ends at index 9
    walk<<<1, BLOCK>>>(items, out);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int t = 0; t < BLOCK; ++t) {
        int u = (t + 1) % BLOCK, want = 0;
        for (int i = u % 4; i < 12 && items[i] != 0; ++i)
            if (items[i] % 5 != 0) want += items[i];
        want += u % 2 ? 100 * items[0] : -1;
        for (int at = u % 3; at < 6; ++at) want += 1000 * items[at];
        int x = (u % 12 < 12 ? items[u % 12] : 0) - 3;
        if (x > 0) want += 10000 * x;
        int b = items[u % 12] - 2;
        want += b ? 100000 * b : -2;
        if (out[t] != want && bad++ < 5) printf("walk %d: %d, expected %d\n", t, out[t], want);
    }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
