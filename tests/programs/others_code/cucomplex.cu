// cuComplex.h: single- and double-precision complex arithmetic in a kernel and on the host,
// checked against std::complex.
#include <cuComplex.h>

#include <complex>
#include <cstdio>

__global__ void complex_ops(const cuFloatComplex *a, const cuFloatComplex *b, cuFloatComplex *out,
                            cuDoubleComplex *out_d, float *abs_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuFloatComplex x = a[i], y = b[i];
  cuFloatComplex r = cuCaddf(cuCmulf(x, cuConjf(y)), cuCdivf(x, y));
  out[i] = cuCsubf(r, make_cuComplex(cuCimagf(y), cuCrealf(x)));
  cuDoubleComplex xd = cuComplexFloatToDouble(x), yd = cuComplexFloatToDouble(y);
  out_d[i] = cuCfma(xd, yd, cuCdiv(cuCsub(xd, yd), cuCadd(yd, make_cuDoubleComplex(1.0, 0.0))));
  abs_out[i] = cuCabsf(x);
}

int main() {
  const int n = 200;
  cuFloatComplex h_a[n], h_b[n], h_out[n];
  cuDoubleComplex h_out_d[n];
  float h_abs[n];
  for (int i = 0; i < n; i++) {
    h_a[i] = make_cuFloatComplex(0.25f * i - 20.0f, 3.0f - 0.5f * (i % 17));
    h_b[i] = make_cuFloatComplex(1.0f + (i % 7), -2.0f + 0.125f * i);
  }
  cuFloatComplex *a, *b, *out;
  cuDoubleComplex *out_d;
  float *abs_out;
  cudaMalloc(&a, sizeof h_a);
  cudaMalloc(&b, sizeof h_b);
  cudaMalloc(&out, sizeof h_out);
  cudaMalloc(&out_d, sizeof h_out_d);
  cudaMalloc(&abs_out, sizeof h_abs);
  cudaMemcpy(a, h_a, sizeof h_a, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h_b, sizeof h_b, cudaMemcpyHostToDevice);
  complex_ops<<<(n + 63) / 64, 64>>>(a, b, out, out_d, abs_out, n);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_out_d, out_d, sizeof h_out_d, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_abs, abs_out, sizeof h_abs, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) {
    std::complex<double> x(h_a[i].x, h_a[i].y), y(h_b[i].x, h_b[i].y);
    std::complex<double> r = x * std::conj(y) + x / y - std::complex<double>(y.imag(), x.real());
    std::complex<double> rd = x * y + (x - y) / (y + 1.0);
    double tolerance = 1e-5 * (1.0 + std::abs(r));
    if (std::abs(std::complex<double>(h_out[i].x, h_out[i].y) - r) > tolerance ||
        std::abs(std::complex<double>(h_out_d[i].x, h_out_d[i].y) - rd) > 1e-12 * (1.0 + std::abs(rd)) ||
        std::abs(h_abs[i] - std::abs(x)) > 1e-6 * std::abs(x)) {
      printf("FAIL: element %d\n", i);
      return 1;
    }
  }
  if (cuCabs(make_cuDoubleComplex(3.0, 4.0)) != 5.0) {
    printf("FAIL: host cuCabs\n");
    return 1;
  }
  printf("PASS\n");
  return 0;
}
