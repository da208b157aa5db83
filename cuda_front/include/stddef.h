/* cuda2cpu parse-mode stddef.h: the freestanding definitions clang's resource directory would
   supply.  The libclang wheel ships no resource directory, so the front end carries its own.
   glibc includes this file with __need_* macros set; every inclusion defines whatever is missing. */
#ifndef __CUDA2CPU_SIZE_T
#define __CUDA2CPU_SIZE_T
typedef __SIZE_TYPE__ size_t;
#endif
#ifndef __CUDA2CPU_PTRDIFF_T
#define __CUDA2CPU_PTRDIFF_T
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#endif
#if !defined(__cplusplus) && !defined(__CUDA2CPU_WCHAR_T)
#define __CUDA2CPU_WCHAR_T
typedef __WCHAR_TYPE__ wchar_t;
#endif
#if defined(__need_wint_t) && !defined(__CUDA2CPU_WINT_T)
#define __CUDA2CPU_WINT_T
typedef __WINT_TYPE__ wint_t;
#endif
#ifndef __CUDA2CPU_MAX_ALIGN_T
#define __CUDA2CPU_MAX_ALIGN_T
typedef struct {
  long long __ll __attribute__((__aligned__(__alignof__(long long))));
  long double __ld __attribute__((__aligned__(__alignof__(long double))));
} max_align_t;
#endif
#if defined(__cplusplus) && __cplusplus >= 201103L && !defined(__CUDA2CPU_NULLPTR_T)
#define __CUDA2CPU_NULLPTR_T
namespace std { typedef decltype(nullptr) nullptr_t; }
using ::std::nullptr_t;
#endif
#undef NULL
#ifdef __cplusplus
#define NULL __null
#else
#define NULL ((void *)0)
#endif
#ifndef offsetof
#define offsetof(t, d) __builtin_offsetof(t, d)
#endif
#undef __need_size_t
#undef __need_ptrdiff_t
#undef __need_wchar_t
#undef __need_wint_t
#undef __need_NULL
#undef __need_max_align_t
#undef __need_offsetof
