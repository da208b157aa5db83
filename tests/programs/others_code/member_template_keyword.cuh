// A converter whose member templates are called, in templates, without the `template` keyword
// that C++ asks for before a dependent member template (nvcc accepts the call as written).
#pragma once
#include <cstddef>

template <typename Dst, typename Src>
struct converter {
  template <size_t N>
  __device__ static void run(Dst *dst, const Src *src) {
    for (size_t i = 0; i < N; i++) dst[i] = (Dst)src[i];
  }
};

// The factor of the int-to-float conversion, 2 as the device pass sees it: the header is both
// read as the device pass does and given its missing keywords.
__device__ float device_factor() {
#ifdef __CUDA_ARCH__
  return 2.0f;
#else
  return -100.0f;
#endif
}

// The int-to-float conversion scales by 2, so that the test sees which one ran.
template <>
struct converter<float, int> {
  template <size_t N>
  __device__ static void run(float *dst, const int *src) {
    for (size_t i = 0; i < N; i++) dst[i] = device_factor() * src[i];
  }
};

template <typename T, size_t N>
struct pack {
  T items[N];
  template <typename U>
  __device__ U first_as() const { return (U)items[0]; }
  __device__ T *ptr() { return items; }
};

template <typename Src, typename Dst, size_t N>
__device__ void convert_pack(pack<Dst, N> &dst, const pack<Src, N> &src) {
  converter<Dst, Src>::run<N>(
      dst.ptr(), const_cast<pack<Src, N> *>(&src)->ptr());
}
