// What nvcc's front end accepts and clang's lexer does not by default: a launch written with
// spaces inside its brackets (`k << < grid, block >> > (args)`) and a string literal directly
// followed by a macro (`"x="FMT`), in host and in device code.  A template closing `>> >` stays.
#include <cstdio>
#include <cstring>
#include <vector>

#define FMT "%d"
#define SUFFIX "yz"

__global__ void tag_and_sum(char *tag, int *sums) {
  __shared__ int part[64];
  const char *text = "wx"SUFFIX;
  part[threadIdx.x] = threadIdx.x + blockIdx.x;
  __syncthreads();
  if (threadIdx.x < 4 && blockIdx.x == 0) tag[threadIdx.x] = text[threadIdx.x];
  if (threadIdx.x == 0) {
    int total = 0;
    for (int t = 0; t < 64; t++) total += part[t];
    sums[blockIdx.x] = total;
  }
}

int main() {
  std::vector<std::vector<std::vector<int>> > nested(1, std::vector<std::vector<int>>(1, std::vector<int>(1, 7)));
  char *tag;
  int *sums;
  cudaMalloc(&tag, 5);
  cudaMalloc(&sums, 3 * sizeof(int));
  cudaMemset(tag, 0, 5);
  tag_and_sum << < 3, 64 >> > (tag, sums);
  char h_tag[5];
  int h_sums[3];
  cudaMemcpy(h_tag, tag, 5, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_sums, sums, sizeof h_sums, cudaMemcpyDeviceToHost);
  char line[32];
  snprintf(line, sizeof line, "n="FMT, nested[0][0][0]);
  if (std::strcmp(h_tag, "wxyz") != 0 || std::strcmp(line, "n=7") != 0) {
    printf("FAIL: tag '%s', line '%s'\n", h_tag, line);
    return 1;
  }
  for (int b = 0; b < 3; b++)
    if (h_sums[b] != 64 * 63 / 2 + 64 * b) {
      printf("FAIL: block %d sums to %d\n", b, h_sums[b]);
      return 1;
    }
  printf("PASS\n");
  return 0;
}
