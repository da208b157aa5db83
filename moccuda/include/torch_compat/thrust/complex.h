/* MocCUDA torch compat: thrust::complex, for parsing PyTorch's headers in CUDA mode.
 *
 * c10::complex converts to and from thrust::complex when __CUDACC__ is defined, and c10's complex
 * math calls thrust's functions.  Here thrust::complex is std::complex under another name and its
 * functions are std's, which is what c10 computes on the CPU.  Only parse mode reads this header:
 * the translated C++ is compiled without __CUDACC__, where c10 uses std::complex directly.
 */
#ifndef MOCCUDA_TORCH_COMPAT_THRUST_COMPLEX_H
#define MOCCUDA_TORCH_COMPAT_THRUST_COMPLEX_H

#include <complex>

namespace thrust {

template <class T>
struct complex : std::complex<T> {
    using std::complex<T>::complex;
    __host__ __device__ complex(const std::complex<T> &c) : std::complex<T>(c) {}
};

#define MOCCUDA_THRUST_UNARY(name)                                                               \
    template <class T> __host__ __device__ complex<T> name(const complex<T> &z)                   \
    {                                                                                             \
        return complex<T>(std::name(static_cast<const std::complex<T> &>(z)));                   \
    }
MOCCUDA_THRUST_UNARY(exp)
MOCCUDA_THRUST_UNARY(log)
MOCCUDA_THRUST_UNARY(log10)
MOCCUDA_THRUST_UNARY(sqrt)
MOCCUDA_THRUST_UNARY(sin)
MOCCUDA_THRUST_UNARY(cos)
MOCCUDA_THRUST_UNARY(tan)
MOCCUDA_THRUST_UNARY(asin)
MOCCUDA_THRUST_UNARY(acos)
MOCCUDA_THRUST_UNARY(atan)
MOCCUDA_THRUST_UNARY(sinh)
MOCCUDA_THRUST_UNARY(cosh)
MOCCUDA_THRUST_UNARY(tanh)
MOCCUDA_THRUST_UNARY(asinh)
MOCCUDA_THRUST_UNARY(acosh)
MOCCUDA_THRUST_UNARY(atanh)
MOCCUDA_THRUST_UNARY(conj)
MOCCUDA_THRUST_UNARY(proj)
#undef MOCCUDA_THRUST_UNARY

template <class T> __host__ __device__ T abs(const complex<T> &z) { return std::abs(static_cast<const std::complex<T> &>(z)); }
template <class T> __host__ __device__ T arg(const complex<T> &z) { return std::arg(static_cast<const std::complex<T> &>(z)); }
template <class T> __host__ __device__ T norm(const complex<T> &z) { return std::norm(static_cast<const std::complex<T> &>(z)); }
template <class T> __host__ __device__ complex<T> polar(const T &r, const T &theta = T()) { return complex<T>(std::polar(r, theta)); }
template <class T, class U>
__host__ __device__ complex<T> pow(const complex<T> &x, const complex<U> &y)
{
    return complex<T>(std::pow(static_cast<const std::complex<T> &>(x), static_cast<const std::complex<U> &>(y)));
}
template <class T, class U>
__host__ __device__ complex<T> pow(const complex<T> &x, const U &y)
{
    return complex<T>(std::pow(static_cast<const std::complex<T> &>(x), y));
}
template <class T, class U>
__host__ __device__ complex<U> pow(const T &x, const complex<U> &y)
{
    return complex<U>(std::pow(x, static_cast<const std::complex<U> &>(y)));
}

}  // namespace thrust

#endif /* MOCCUDA_TORCH_COMPAT_THRUST_COMPLEX_H */
