// Spellings inside kernel templates that depend on the template's parameters: a conversion to
// a builtin type written as a call, int(vals[j]), of an element of an array whose size is a
// template parameter, and a __shared__ variable whose type names a member of a local typedef
// (typename Alias::Storage, the CUB idiom `typedef BlockLoad<...> Load; __shared__ typename
// Load::TempStorage storage;`).
#include <cstdio>

template <typename T, int N>
struct Staging {
  struct Storage {
    T items[N];
  };
};

template <int N>
__global__ void halve(const float *in, int *out) {
  typedef Staging<int, N> Stage;
  __shared__ typename Stage::Storage storage;
  float vals[N];
  for (int j = 0; j < N; j++) vals[j] = in[threadIdx.x * N + j] * 1.5f;
  for (int j = 0; j < N; j++) storage.items[(threadIdx.x * N + j) % N] = 0;
  __syncthreads();
  for (int j = 0; j < N; j++) out[threadIdx.x * N + j] = int(vals[j]) / 2 + storage.items[j];
}

int main() {
  const int items = 4, threads = 8, n = items * threads;
  float h_in[n];
  int h_out[n];
  for (int i = 0; i < n; i++) h_in[i] = 0.75f * i + 0.4f;
  float *in;
  int *out;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  halve<items><<<1, threads>>>(in, out);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) {
    int expected = (int)(h_in[i] * 1.5f) / 2;
    if (h_out[i] != expected) {
      printf("FAIL: out[%d] is %d, expected %d\n", i, h_out[i], expected);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
