// __shared__ variables declared in member functions (the CUB idiom: a collective class takes its
// temporary storage from `PrivateStorage()`, a member function holding a __shared__ variable, and
// counts with a `static __shared__` one).  There is one variable per block and per declaration,
// and each instantiation of the class template has its own: every call in a block returns the
// same storage, other blocks and other instantiations have theirs.
#include <cstdio>

template <typename T, int THREADS>
class BlockReverse {
  struct Storage {
    T items[THREADS];
  };
  __device__ Storage &PrivateStorage() {
    __shared__ Storage private_storage;
    return private_storage;
  }
  Storage &storage;
  int tid;

 public:
  __device__ explicit BlockReverse(int tid) : storage(PrivateStorage()), tid(tid) {}
  __device__ void Stage(T v) { storage.items[tid] = v; }
  __device__ T Reversed() const { return storage.items[THREADS - 1 - tid]; }
  __device__ static int *Arrivals() {
    static __shared__ int count;
    return &count;
  }
};

template <int THREADS>
__global__ void reverse_blocks(const float *in, float *out, int *labels, int *arrivals) {
  int t = threadIdx.x, i = blockIdx.x * THREADS + t;
  if (t == 0) {
    *BlockReverse<float, THREADS>::Arrivals() = 0;
    *BlockReverse<int, THREADS>::Arrivals() = 100;
  }
  BlockReverse<float, THREADS>(t).Stage(in[i]);
  BlockReverse<int, THREADS>(t).Stage(i);
  __syncthreads();
  out[i] = BlockReverse<float, THREADS>(t).Reversed();
  labels[i] = BlockReverse<int, THREADS>(t).Reversed();
  atomicAdd(BlockReverse<float, THREADS>::Arrivals(), 1);
  atomicAdd(BlockReverse<int, THREADS>::Arrivals(), 2);
  __syncthreads();
  if (t == 0)
    arrivals[blockIdx.x] = *BlockReverse<float, THREADS>::Arrivals() * 1000 + *BlockReverse<int, THREADS>::Arrivals();
}

int main() {
  const int threads = 64, blocks = 5, n = threads * blocks;
  float h_in[n], h_out[n];
  int h_labels[n], h_arrivals[blocks];
  for (int i = 0; i < n; i++) h_in[i] = 0.25f * i - 7.0f;
  float *in, *out;
  int *labels, *arrivals;
  cudaMalloc(&in, sizeof h_in);
  cudaMalloc(&out, sizeof h_out);
  cudaMalloc(&labels, sizeof h_labels);
  cudaMalloc(&arrivals, sizeof h_arrivals);
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  reverse_blocks<threads><<<blocks, threads>>>(in, out, labels, arrivals);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_labels, labels, sizeof h_labels, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_arrivals, arrivals, sizeof h_arrivals, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) {
    int mirror = i / threads * threads + threads - 1 - i % threads;
    if (h_out[i] != h_in[mirror] || h_labels[i] != mirror) {
      printf("FAIL: element %d is %f and %d, expected %f and %d\n", i, h_out[i], h_labels[i], h_in[mirror], mirror);
      return 1;
    }
  }
  for (int b = 0; b < blocks; b++) {
    if (h_arrivals[b] != threads * 1000 + 100 + 2 * threads) {
      printf("FAIL: block %d counted %d\n", b, h_arrivals[b]);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
