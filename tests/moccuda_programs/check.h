// The check of MocCUDA's test programs: in a function returning int, print the line and the
// condition that failed and return 1.
#ifndef MOCCUDA_TEST_CHECK_H
#define MOCCUDA_TEST_CHECK_H

#include <cstdio>

#define CHECK(cond)                                                    \
    do {                                                               \
        if (!(cond)) {                                                 \
            printf("FAIL line %d: %s\n", __LINE__, #cond);             \
            return 1;                                                  \
        }                                                              \
    } while (0)

#endif
