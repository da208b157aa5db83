/* cuda2cpu parse-mode stdarg.h (see stddef.h for why the front end carries it). */
#ifndef __CUDA2CPU_GNUC_VA_LIST
#define __CUDA2CPU_GNUC_VA_LIST
typedef __builtin_va_list __gnuc_va_list;
#endif
#ifndef __need___va_list
#ifndef __CUDA2CPU_STDARG_H
#define __CUDA2CPU_STDARG_H
typedef __builtin_va_list va_list;
#define va_start(ap, param) __builtin_va_start(ap, param)
#define va_end(ap) __builtin_va_end(ap)
#define va_arg(ap, type) __builtin_va_arg(ap, type)
#define va_copy(dest, src) __builtin_va_copy(dest, src)
#define __va_copy(d, s) __builtin_va_copy(d, s)
#endif
#endif
#undef __need___va_list
