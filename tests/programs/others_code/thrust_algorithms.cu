// Thrust as CUDA programs use it beside their own kernels: device_vector and host_vector, the
// thrust::device policy, algorithms with __host__ __device__ and __device__ functors and a
// __device__ lambda, raw_pointer_cast into a kernel that synchronizes its block, device_ptr
// over memory from thrust::device_malloc and from cudaMalloc, fancy iterators, thrust::complex in
// a kernel, and thrust::system_error (which programs catch without including it).  Every result
// is checked against a plain host computation.
#include <cstdio>
#include <thrust/complex.h>
#include <thrust/count.h>
#include <thrust/device_free.h>
#include <thrust/device_malloc.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

static int failures = 0;
#define CHECK(cond)                                  \
  do {                                               \
    if (!(cond)) {                                   \
      printf("FAIL line %d: %s\n", __LINE__, #cond); \
      failures++;                                    \
    }                                                \
  } while (0)

struct cube {
  __host__ __device__ long operator()(int x) const { return (long)x * x * x; }
};

struct is_odd {
  __device__ bool operator()(int x) const { return x % 2 != 0; }
};

struct weighted {
  __host__ __device__ int operator()(const thrust::tuple<int, int> &t) const {
    return thrust::get<0>(t) * 10 + thrust::get<1>(t);
  }
};

// Each block reverses its part of the array through shared memory.
__global__ void reverse_blocks(int *a, int n) {
  __shared__ int tile[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tile[threadIdx.x] = a[i];
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (i < n && j < n) a[i] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void rotate(thrust::complex<float> *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = z[i] * thrust::complex<float>(0.0f, 1.0f) + thrust::abs(z[i]);
}

int main() {
  const int n = 1000;  // blocks of 128: the last one partial
  thrust::host_vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = (i * 7919) % n;
  thrust::device_vector<int> d = h;

  thrust::sort(thrust::device, d.begin(), d.end());
  thrust::host_vector<int> sorted = d;
  for (int i = 0; i < n; i++) CHECK(sorted[i] == i);

  long cubes = thrust::transform_reduce(d.begin(), d.end(), cube(), 0L, thrust::plus<long>());
  long expected = 0;
  for (int i = 0; i < n; i++) expected += (long)i * i * i;
  CHECK(cubes == expected);
  CHECK(thrust::count_if(thrust::device, d.begin(), d.end(), is_odd()) == n / 2);
  thrust::device_vector<int> doubled(n);
  thrust::transform(d.begin(), d.end(), doubled.begin(), [] __device__(int x) { return 2 * x; });
  CHECK(doubled[n - 1] == 2 * (n - 1));

  // A kernel of the program on the vector's storage, then Thrust again on its result.
  reverse_blocks<<<(n + 127) / 128, 128>>>(thrust::raw_pointer_cast(d.data()), n);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  thrust::host_vector<int> reversed = d;
  for (int b = 0; b < n / 128; b++)
    for (int t = 0; t < 128; t++) CHECK(reversed[b * 128 + t] == b * 128 + 127 - t);
  thrust::inclusive_scan(d.begin(), d.end(), d.begin());
  thrust::host_vector<int> scanned = d;
  long running = 0;
  for (int i = 0; i < n; i++) {
    running += reversed[i];
    CHECK(scanned[i] == running);
  }

  // device_ptr over memory from thrust::device_malloc, copied with the runtime.
  thrust::device_ptr<int> p = thrust::device_malloc<int>(n);
  thrust::sequence(p, p + n, 5);
  int back[n];
  CHECK(cudaMemcpy(back, p.get(), sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back[0] == 5 && back[n - 1] == n + 4);
  thrust::device_free(p);

  // device_ptr over memory from cudaMalloc.
  int *raw = nullptr;
  CHECK(cudaMalloc(&raw, n * sizeof(int)) == cudaSuccess);
  thrust::device_ptr<int> q = thrust::device_pointer_cast(raw);
  thrust::fill(q, q + n, 3);
  CHECK(thrust::reduce(q, q + n) == 3 * n);
  thrust::device_vector<int> digits(n);
  thrust::transform(thrust::make_zip_iterator(thrust::make_tuple(q, thrust::counting_iterator<int>(0))),
                    thrust::make_zip_iterator(thrust::make_tuple(q + n, thrust::counting_iterator<int>(n))),
                    digits.begin(), weighted());
  CHECK(digits[0] == 30 && digits[7] == 37);
  cudaFree(raw);

  // thrust::complex in device code.
  thrust::device_vector<thrust::complex<float>> z(n);
  for (int i = 0; i < n; i++) z[i] = thrust::complex<float>(3.0f, 4.0f * (i % 2));
  rotate<<<(n + 127) / 128, 128>>>(thrust::raw_pointer_cast(z.data()), n);
  cudaDeviceSynchronize();
  thrust::complex<float> z0 = z[0], z1 = z[1];
  CHECK(z0.real() == 3.0f && z0.imag() == 3.0f);   // 3i + |3|
  CHECK(z1.real() == 1.0f && z1.imag() == 3.0f);   // (3 + 4i) i + 5 = -4 + 3i + 5

  try {
    throw thrust::system_error(thrust::error_code(1, thrust::system_category()), "checked");
  } catch (thrust::system_error &e) {
    CHECK(e.code().value() == 1);
  }
  if (failures) return 1;
  printf("PASS\n");
  return 0;
}
