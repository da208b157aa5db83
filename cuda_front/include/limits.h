/* cuda2cpu parse-mode limits.h: the compiler's limits, then the C library's. */
#ifndef __CUDA2CPU_LIMITS_H
#define __CUDA2CPU_LIMITS_H
#if __has_include_next(<limits.h>)
/* glibc's limits.h would include_next the compiler's own, which this file replaces. */
#ifndef _GCC_LIMITS_H_
#define _GCC_LIMITS_H_
#endif
#include_next <limits.h>
#endif
#undef CHAR_BIT
#define CHAR_BIT __CHAR_BIT__
#undef SCHAR_MAX
#define SCHAR_MAX __SCHAR_MAX__
#undef SCHAR_MIN
#define SCHAR_MIN (-__SCHAR_MAX__ - 1)
#undef UCHAR_MAX
#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)
#undef CHAR_MIN
#undef CHAR_MAX
#ifdef __CHAR_UNSIGNED__
#define CHAR_MIN 0
#define CHAR_MAX UCHAR_MAX
#else
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX __SCHAR_MAX__
#endif
#undef SHRT_MAX
#define SHRT_MAX __SHRT_MAX__
#undef SHRT_MIN
#define SHRT_MIN (-__SHRT_MAX__ - 1)
#undef USHRT_MAX
#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)
#undef INT_MAX
#define INT_MAX __INT_MAX__
#undef INT_MIN
#define INT_MIN (-__INT_MAX__ - 1)
#undef UINT_MAX
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#undef LONG_MAX
#define LONG_MAX __LONG_MAX__
#undef LONG_MIN
#define LONG_MIN (-__LONG_MAX__ - 1L)
#undef ULONG_MAX
#define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)
#undef LLONG_MAX
#define LLONG_MAX __LONG_LONG_MAX__
#undef LLONG_MIN
#define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)
#undef ULLONG_MAX
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)
#endif
