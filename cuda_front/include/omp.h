/* cuda2cpu front end (parse only): the host compiler's omp.h, found after every other include
 * directory (cuda_front.parse.host_openmp_include_dir).  g++'s declares its allocation functions
 * with `__attribute__((__malloc__(omp_free)))`, an argument clang's __malloc__ does not take:
 * the argument is dropped for the parse. */
#pragma push_macro("__malloc__")
#define __malloc__(deallocator) __malloc__
#include_next <omp.h>
#pragma pop_macro("__malloc__")
