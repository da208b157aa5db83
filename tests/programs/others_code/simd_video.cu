// CUDA's SIMD video intrinsics on 2 x 16-bit and 4 x 8-bit lanes of an unsigned int, checked
// against a host reference that works on the lanes as arrays of small integers.
#include <cstdint>
#include <cstdio>
#include <cstring>

#define OPS 14
__global__ void simd_ops(const unsigned *a, const unsigned *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i], *o = out + OPS * i;
  o[0] = __vmaxs4(x, y);   o[1] = __vminu4(x, y);  o[2] = __vadd4(x, y);    o[3] = __vsubss4(x, y);
  o[4] = __vaddus2(x, y);  o[5] = __vmaxu2(x, y);  o[6] = __vmins2(x, y);   o[7] = __vabsdiffs4(x, y);
  o[8] = __vcmpgtu4(x, y); o[9] = __vsetles2(x, y); o[10] = __vsadu4(x, y); o[11] = __vavgs2(x, y);
  o[12] = __vabs4(x);      o[13] = __vnegss2(x);
}

template <typename L> static unsigned pack(const L *lanes, int count) {
  unsigned v = 0;
  std::memcpy(&v, lanes, count * sizeof(L));  // little endian: lane 0 is the low bits
  return v;
}
template <typename L> static void unpack(unsigned v, L *lanes, int count) { std::memcpy(lanes, &v, count * sizeof(L)); }

static void reference(unsigned x, unsigned y, unsigned *o) {
  int8_t sx[4], sy[4], r8[4]; uint8_t ux[4], uy[4], u8[4];
  int16_t hx[2], hy[2], r16[2]; uint16_t vx[2], vy[2], u16[2];
  unpack(x, sx, 4); unpack(y, sy, 4); unpack(x, ux, 4); unpack(y, uy, 4);
  unpack(x, hx, 2); unpack(y, hy, 2); unpack(x, vx, 2); unpack(y, vy, 2);
  auto sat8 = [](int v) { return (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v); };
  auto sat16 = [](int v) { return (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v); };
  for (int k = 0; k < 4; k++) r8[k] = sx[k] > sy[k] ? sx[k] : sy[k];
  o[0] = pack(r8, 4);
  for (int k = 0; k < 4; k++) u8[k] = ux[k] < uy[k] ? ux[k] : uy[k];
  o[1] = pack(u8, 4);
  for (int k = 0; k < 4; k++) u8[k] = (uint8_t)(ux[k] + uy[k]);
  o[2] = pack(u8, 4);
  for (int k = 0; k < 4; k++) r8[k] = sat8(sx[k] - sy[k]);
  o[3] = pack(r8, 4);
  for (int k = 0; k < 2; k++) u16[k] = (uint16_t)(vx[k] + vy[k] > 65535 ? 65535 : vx[k] + vy[k]);
  o[4] = pack(u16, 2);
  for (int k = 0; k < 2; k++) u16[k] = vx[k] > vy[k] ? vx[k] : vy[k];
  o[5] = pack(u16, 2);
  for (int k = 0; k < 2; k++) r16[k] = hx[k] < hy[k] ? hx[k] : hy[k];
  o[6] = pack(r16, 2);
  for (int k = 0; k < 4; k++) u8[k] = (uint8_t)(sx[k] > sy[k] ? sx[k] - sy[k] : sy[k] - sx[k]);
  o[7] = pack(u8, 4);
  for (int k = 0; k < 4; k++) u8[k] = ux[k] > uy[k] ? 0xff : 0;
  o[8] = pack(u8, 4);
  for (int k = 0; k < 2; k++) u16[k] = hx[k] <= hy[k] ? 1 : 0;
  o[9] = pack(u16, 2);
  o[10] = 0;
  for (int k = 0; k < 4; k++) o[10] += ux[k] > uy[k] ? ux[k] - uy[k] : uy[k] - ux[k];
  for (int k = 0; k < 2; k++) { int s = hx[k] + hy[k]; r16[k] = (int16_t)(s < 0 ? s >> 1 : (s + 1) >> 1); }
  o[11] = pack(r16, 2);
  for (int k = 0; k < 4; k++) r8[k] = (int8_t)(sx[k] < 0 ? -sx[k] : sx[k]);
  o[12] = pack(r8, 4);
  for (int k = 0; k < 2; k++) r16[k] = sat16(-hx[k]);
  o[13] = pack(r16, 2);
}

int main() {
  const int n = 512;
  unsigned h_a[n], h_b[n], h_out[OPS * n];
  unsigned seed = 12345u;
  for (int i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u; h_a[i] = seed;
    seed = seed * 1664525u + 1013904223u; h_b[i] = seed;
  }
  h_a[0] = 0x80007fffu; h_b[0] = 0x7fff8000u;  // the saturating and sign edges
  h_a[1] = 0x80ff7f01u; h_b[1] = 0x7f0180ffu;
  unsigned *a, *b, *out;
  cudaMalloc(&a, sizeof h_a);
  cudaMalloc(&b, sizeof h_b);
  cudaMalloc(&out, sizeof h_out);
  cudaMemcpy(a, h_a, sizeof h_a, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h_b, sizeof h_b, cudaMemcpyHostToDevice);
  simd_ops<<<n / 128, 128>>>(a, b, out, n);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++) {
    unsigned expected[OPS];
    reference(h_a[i], h_b[i], expected);
    for (int k = 0; k < OPS; k++)
      if (h_out[OPS * i + k] != expected[k]) {
        printf("FAIL: operation %d on %08x, %08x gives %08x, expected %08x\n", k, h_a[i], h_b[i], h_out[OPS * i + k],
               expected[k]);
        return 1;
      }
  }
  printf("PASS\n");
  return 0;
}
