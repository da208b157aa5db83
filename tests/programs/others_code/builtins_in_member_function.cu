// threadIdx, blockIdx, blockDim and gridDim read in code kept as written: a functor's operator()
// (a grid-stride loop, called from a kernel template that takes the functor by value), a member
// function, and a __device__ function that reads threadIdx called from a constructor's member
// initializer list (CUB's `linear_tid(RowMajorTid(...))`).
#include <cstdio>

__device__ int row_major_tid(int dim_x, int dim_y) {
  return (threadIdx.z * dim_y + threadIdx.y) * dim_x + threadIdx.x;
}

struct Axpy {
  float a;
  __device__ void operator()(int n, const float *x, float *y) const {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
      y[i] += a * x[i];
  }
};

template <typename F>
__global__ void apply(F f, int n, const float *x, float *y) {
  f(n, x, y);
}

template <int DIM_X, int DIM_Y>
struct Tile {
  int tid;
  __device__ Tile() : tid(row_major_tid(DIM_X, DIM_Y)) {}
  __device__ int global() const { return blockIdx.x * (blockDim.x * blockDim.y) + tid; }
};

template <int DIM_X, int DIM_Y>
__global__ void tiles(int *owner) {
  __shared__ int first[DIM_X * DIM_Y];
  Tile<DIM_X, DIM_Y> tile;
  first[tile.tid] = tile.global();
  __syncthreads();
  owner[Tile<DIM_X, DIM_Y>().global()] = first[DIM_X * DIM_Y - 1 - tile.tid];
}

int main() {
  const int n = 1000;
  float h_x[n], h_y[n];
  for (int i = 0; i < n; i++) {
    h_x[i] = 0.5f * i;
    h_y[i] = 3.0f - i;
  }
  float *x, *y;
  cudaMalloc(&x, sizeof h_x);
  cudaMalloc(&y, sizeof h_y);
  cudaMemcpy(x, h_x, sizeof h_x, cudaMemcpyHostToDevice);
  cudaMemcpy(y, h_y, sizeof h_y, cudaMemcpyHostToDevice);
  apply<<<3, 64>>>(Axpy{2.0f}, n, x, y);
  cudaMemcpy(h_y, y, sizeof h_y, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) {
    if (h_y[i] != 3.0f - i + 2.0f * (0.5f * i)) {
      printf("FAIL: y[%d] is %f\n", i, h_y[i]);
      return 1;
    }
  }
  const int dx = 8, dy = 4, per_block = dx * dy, blocks = 3;
  int h_owner[per_block * blocks];
  int *owner;
  cudaMalloc(&owner, sizeof h_owner);
  tiles<dx, dy><<<blocks, dim3(dx, dy)>>>(owner);
  cudaMemcpy(h_owner, owner, sizeof h_owner, cudaMemcpyDeviceToHost);
  for (int i = 0; i < per_block * blocks; i++) {
    int expected = i / per_block * per_block + per_block - 1 - i % per_block;
    if (h_owner[i] != expected) {
      printf("FAIL: owner[%d] is %d, expected %d\n", i, h_owner[i], expected);
      return 1;
    }
  }
  printf("PASS\n");
  return 0;
}
