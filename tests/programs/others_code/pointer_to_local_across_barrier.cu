// A pointer to a thread's local, kept across __syncthreads(): the local must live across it too.
#include <cstdio>
struct S { int tid; int pad[3]; };
__global__ void k(int *out) {
  __shared__ int sh[64];
  S s; s.tid = threadIdx.x;
  S *p = &s;
  sh[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = p->tid + sh[63 - threadIdx.x];
}
int main() {
  int *d; cudaMalloc(&d, 64 * sizeof(int)); int h[64];
  k<<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int ok = 1; for (int i = 0; i < 64; i++) ok &= h[i] == 63;
  printf("%s\n", ok ? "PASS" : "FAIL");
}
