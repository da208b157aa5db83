// Rodinia dwt2d's shape: a static member function declares a __shared__ object of its own class
// template and calls a member function template on it with written template arguments
// (`rows.step<true>(...)`), whose body synchronizes, names the class's private nested type
// (`Half()`), an enumerator and members, and passes a functor to another member template.  The
// kernel names the class through a local typedef of a local constant (`constexpr int width`).
#include <cstdio>

namespace img {

template <int W>
class Rows {
  struct Half {
    __device__ void operator()(int &c) const { c /= 2; }
  };
  int buf[W];
  enum { LAST = W - 1 };

  template <class F>
  __device__ void each(const F &f) {
    f(buf[threadIdx.x]);
  }

  template <bool SHIFT>
  __device__ void step(const int *in, int *out) {
    buf[threadIdx.x] = in[blockIdx.x * W + threadIdx.x];
    __syncthreads();
    each(Half());
    __syncthreads();
    int v = SHIFT ? buf[(threadIdx.x + 1) & LAST] : buf[threadIdx.x];
    __syncthreads();
    out[blockIdx.x * W + threadIdx.x] = v;
  }

 public:
  __device__ static void run(const int *in, int *out, bool shift) {
    __shared__ Rows<W> rows;
    if (shift)
      rows.step<true>(in, out);
    else
      rows.template step<false>(in, out);
  }
};

}  // namespace img

template <int W>
__global__ void rows_kernel(const int *in, int *out, bool shift) {
  constexpr int width = W;
  typedef img::Rows<width> R;
  R::run(in, out, shift);
}

int main() {
  const int w = 32, blocks = 3, n = w * blocks;
  int in[n], out[n], ok = 1;
  for (int i = 0; i < n; i++) in[i] = 2 * i + 1;
  int *d_in, *d_out;
  cudaMalloc(&d_in, sizeof in);
  cudaMalloc(&d_out, sizeof out);
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
  for (int shift = 0; shift < 2; shift++) {
    rows_kernel<w><<<blocks, w>>>(d_in, d_out, shift);
    cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) {
      int expected = shift ? i / w * w + (i + 1) % w : i;
      if (out[i] != expected) {
        if (ok) printf("shift %d: out[%d] = %d, expected %d\n", shift, i, out[i], expected);
        ok = 0;
      }
    }
  }
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
