// latin1_kernels.cuh: a header in Latin-1, not UTF-8 (© 2010 Société Example).
#pragma once

__global__ void fill_index(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // «index»
  if (i < n) a[i] = 3 * i;
}
