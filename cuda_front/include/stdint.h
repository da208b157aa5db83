/* cuda2cpu parse-mode stdint.h: the C library provides the definitions. */
#include_next <stdint.h>
