/* cuda2cpu parse-mode stdbool.h. */
#ifndef __CUDA2CPU_STDBOOL_H
#define __CUDA2CPU_STDBOOL_H
#ifndef __cplusplus
#define bool _Bool
#define true 1
#define false 0
#endif
#define __bool_true_false_are_defined 1
#endif
