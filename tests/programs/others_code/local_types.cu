// Types defined inside a kernel: an aligned vector struct on the kernel's template parameters
// (loads and stores several elements at once, as vectorized kernels do) held in shared memory
// and across a barrier, and an enum.
#include <cstdio>

template <typename T, int VEC>
__global__ void rotate_vectors(const T *in, T *out) {
  struct alignas(sizeof(T) * VEC) Vec {
    T data[VEC];
  };
  enum Scale { keep = 1, twice = 2 };
  __shared__ Vec tile[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Vec mine = *reinterpret_cast<const Vec *>(&in[i * VEC]);
  tile[threadIdx.x] = mine;
  __syncthreads();
  Vec other = tile[(threadIdx.x + 1) % blockDim.x];
  for (int v = 0; v < VEC; v++) other.data[v] = other.data[v] * (T)twice + mine.data[v] * (T)keep;
  *reinterpret_cast<Vec *>(&out[i * VEC]) = other;
}

int main() {
  const int vec = 4, threads = 32, blocks = 3, n = vec * threads * blocks;
  float h_in[n], h_out[n];
  for (int i = 0; i < n; i++) h_in[i] = 0.5f * i - 3.0f;
  float *in, *out;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  rotate_vectors<float, vec><<<blocks, threads>>>(in, out);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  for (int i = 0; i < n; i++) {
    int thread = i / vec, neighbour = thread / threads * threads + (thread % threads + 1) % threads;
    float expected = 2 * h_in[neighbour * vec + i % vec] + h_in[i];
    if (h_out[i] != expected) {
      printf("FAIL: out[%d] is %f, expected %f\n", i, h_out[i], expected);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
