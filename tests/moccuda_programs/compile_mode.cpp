// Compile mode: MocCUDA's header first (as in translated code), then the standard library and
// typical host code, which must compile warning-free (-Wall -Wextra -Werror) and run correctly.
#include <cuda_runtime.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <complex>
#include <cstdio>
#include <future>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace std;

// The qualifiers mean nothing to g++.
__constant__ float table[4] = {1, 2, 3, 4};
__device__ int device_value;
__managed__ int managed_value;
__device__ __forceinline__ float square(float x) { return x * x; }
__host__ __device__ __noinline__ int twice(int x) { return 2 * x; }
struct __align__(16) Aligned {
    float v[3];
};

// A kernel as cuda2cpu emits it.
__global__ void __launch_bounds__(256) fill(moccuda::LaunchConfig launch, float *out, int n)
{
    if (!moccuda::launch_begin(launch))
        return;
    const dim3 gridDim = launch.grid;
    const dim3 blockDim = launch.block;
#pragma omp parallel for collapse(3) schedule(static)
    for (unsigned bz = 0; bz < gridDim.z; ++bz)
        for (unsigned by = 0; by < gridDim.y; ++by)
            for (unsigned bx = 0; bx < gridDim.x; ++bx) {
                const uint3 blockIdx = {bx, by, bz};
                for (unsigned tx = 0; tx < blockDim.x; ++tx) {
                    int i = (int)(blockIdx.x * blockDim.x + tx);
                    if (i < n)
                        out[i] = square(table[i % 4]) + (float)max(i, 0);
                }
            }
    moccuda::launch_end(launch);
}

int main()
{
    vector<int> values{3, 1, 2};
    sort(values.begin(), values.end());
    // Unqualified min/max under `using namespace std` pick CUDA's exact overloads.
    int smallest = min(values[0], values[1]);
    size_t largest = max<size_t>(values.size(), 2);
    float f = max(1.5f, 2.5f);
    double d = min(1.0, 2.0f);
    long long ll = max(3ll, 4ll);
    unsigned int u = min(2u, 3u);
    auto shared = make_shared<int>(twice(smallest));
    auto unique = make_unique<Aligned>();
    complex<double> z(3, 4);
    mt19937 random(42);
    int from_thread = async(launch::async, [] { return twice(21); }).get();
    assert(alignof(Aligned) == 16 && unique != nullptr);

    const int n = 1000;
    float *out = nullptr;
    if (cudaMallocManaged(&out, n * sizeof(float)) != cudaSuccess)
        return 1;
    fill(moccuda::LaunchConfig((n + 255) / 256, 256), out, n);
    fill(moccuda::LaunchConfig(dim3(1), dim3(2048)), out, n);  // refused: nothing runs
    cudaError_t refused = cudaGetLastError();
    double total = accumulate(out, out + n, 0.0);
    cudaFree(out);

    bool ok = smallest == 1 && largest == 3 && f == 2.5f && d == 1.0 && ll == 4 && u == 2 && *shared == 2 &&
              abs(z) == 5.0 && from_thread == 42 && random() != 0 && refused == cudaErrorInvalidConfiguration &&
              total == 250 * (1 + 4 + 9 + 16) + n * (n - 1) / 2.0;
    cout << (ok ? "PASS" : "FAIL") << endl;
    return ok ? 0 : 1;
}
