// A local initialized by a pure expression (`Acc a = Acc();`) and then changed without an
// assignment to the variable itself: by a member function, through a reference parameter, or by a
// store into an array member.  Its value after the barrier is the changed one: the variable must
// be kept per thread across the barrier, not recomputed from its initializer.
#include <cstdio>

struct Acc {
  float v[4];
  __device__ void add(float x) {
    for (int i = 0; i < 4; i++) v[i] += x;
  }
};

__device__ __noinline__ void twice(Acc &a) {
  for (int i = 0; i < 4; i++) a.v[i] *= 2.0f;
}

__global__ void changed_values(float *out) {
  __shared__ float s[64];
  Acc by_member = Acc();
  by_member.add(threadIdx.x);
  Acc by_reference = Acc();
  by_reference.v[1] = 1.0f;
  twice(by_reference);
  Acc by_store = Acc();
  by_store.v[2] = threadIdx.x + 3.0f;
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  int t = threadIdx.x;
  out[t] = by_member.v[0] + by_reference.v[1] * 100.0f + by_store.v[2] * 1000.0f + s[63 - t];
}

int main() {
  float *d, h[64];
  cudaMalloc(&d, sizeof h);
  changed_values<<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; i++) {
    float expected = i + 200.0f + (i + 3.0f) * 1000.0f + 1.0f;
    if (h[i] != expected) {
      printf("FAIL: thread %d: %g, expected %g\n", i, h[i], expected);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
