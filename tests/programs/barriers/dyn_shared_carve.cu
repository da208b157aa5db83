// One dynamic `extern __shared__` buffer carved into arrays of four types (double, float, int,
// unsigned char, largest alignment first); a loop of rotation rounds with two barriers each.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void rotate_match(const int *keys, const float *vals, double *sums, unsigned char *hits, int n, int rounds)
{
    extern __shared__ unsigned char smem[];
    int B = blockDim.x;
    double *acc = reinterpret_cast<double *>(smem);
    float *val = reinterpret_cast<float *>(acc + B);
    int *key = reinterpret_cast<int *>(val + B);
    unsigned char *cnt = reinterpret_cast<unsigned char *>(key + B);
    int t = threadIdx.x;
    int i = blockIdx.x * B + t;
    int mykey = i < n ? keys[i] : -1;
    key[t] = mykey;
    val[t] = i < n ? vals[i] : 0.0f;
    acc[t] = 0.0;
    cnt[t] = 0;
    __syncthreads();
    for (int r = 1; r <= rounds; ++r) {
        // After round r, slot t holds the key/value that started in slot (t + r) % B.
        int nk = key[(t + 1) % B];
        float nv = val[(t + 1) % B];
        __syncthreads();
        key[t] = nk;
        val[t] = nv;
        if (nk == mykey) {
            acc[t] += nv;
            cnt[t]++;
        }
        __syncthreads();
    }
    if (i < n) {
        sums[i] = acc[t];
        hits[i] = cnt[t];
    }
}

int main()
{
    const int n = 20011, block = 100, rounds = 40;
    std::vector<int> keys(n);
    std::vector<float> vals(n);
    for (int i = 0; i < n; ++i) {
        keys[i] = (i * 7) % 5;
        vals[i] = (float)(i % 11) * 0.5f;
    }
    int *dkeys;
    float *dvals;
    double *dsums;
    unsigned char *dhits;
    cudaMalloc(&dkeys, n * sizeof(int));
    cudaMalloc(&dvals, n * sizeof(float));
    cudaMalloc(&dsums, n * sizeof(double));
    cudaMalloc(&dhits, n);
    cudaMemcpy(dkeys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dvals, vals.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    size_t smem = block * (sizeof(double) + sizeof(float) + sizeof(int) + sizeof(unsigned char));
    rotate_match<<<(n + block - 1) / block, block, smem>>>(dkeys, dvals, dsums, dhits, n, rounds);
    cudaDeviceSynchronize();
    std::vector<double> sums(n);
    std::vector<unsigned char> hits(n);
    cudaMemcpy(sums.data(), dsums, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(hits.data(), dhits, n, cudaMemcpyDeviceToHost);
    cudaFree(dkeys);
    cudaFree(dvals);
    cudaFree(dsums);
    cudaFree(dhits);
    for (int i = 0; i < n; ++i) {
        int start = i / block * block, t = i - start;
        double e = 0;
        int c = 0;
        for (int r = 1; r <= rounds; ++r) {
            int j = start + (t + r) % block;
            int k = j < n ? keys[j] : -1;
            if (k == keys[i]) {
                e += j < n ? vals[j] : 0.0f;
                c++;
            }
        }
        if (std::fabs(sums[i] - e) > 1e-9 * (1 + e) || hits[i] != c) {
            printf("FAIL: index %d: (%g, %d), expected (%g, %d)\n", i, sums[i], hits[i], e, c);
            return 1;
        }
    }
    printf("PASS\n");
    return 0;
}
