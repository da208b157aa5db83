/* MocCUDA: CUDA's vector types (char1 ... double4), uint3 and dim3.
 *
 * Sizes and alignments are CUDA's, so that structures holding them, and data copied between a
 * program and files or other libraries, have the same layout as under nvcc:
 *   T1 and T3 have T's alignment; T2 is aligned to 2 * sizeof(T); T4 to min(4 * sizeof(T), 16).
 *   The 32-byte four-component types also exist as _16a and _32a variants (CUDA 13).
 */
#ifndef MOCCUDA_VECTOR_TYPES_H
#define MOCCUDA_VECTOR_TYPES_H
#define __VECTOR_TYPES_H__  /* CUDA's own include guard, which programs test */

#include "host_defines.h"

/* Declares NAME1 ... NAME4 with component type T, and make_NAME1 ... make_NAME4. */
#define MOCCUDA_VECTOR_FAMILY(T, NAME, ALIGN2, ALIGN4)                                             \
    struct NAME##1 { T x; };                                                                      \
    struct __attribute__((aligned(ALIGN2))) NAME##2 { T x, y; };                                  \
    struct NAME##3 { T x, y, z; };                                                                \
    struct __attribute__((aligned(ALIGN4))) NAME##4 { T x, y, z, w; };                            \
    typedef struct NAME##1 NAME##1;                                                               \
    typedef struct NAME##2 NAME##2;                                                               \
    typedef struct NAME##3 NAME##3;                                                               \
    typedef struct NAME##4 NAME##4;                                                               \
    static inline __host__ __device__ NAME##1 make_##NAME##1(T x)                                 \
    { NAME##1 v = {x}; return v; }                                                                \
    static inline __host__ __device__ NAME##2 make_##NAME##2(T x, T y)                            \
    { NAME##2 v = {x, y}; return v; }                                                             \
    static inline __host__ __device__ NAME##3 make_##NAME##3(T x, T y, T z)                       \
    { NAME##3 v = {x, y, z}; return v; }                                                          \
    static inline __host__ __device__ NAME##4 make_##NAME##4(T x, T y, T z, T w)                  \
    { NAME##4 v = {x, y, z, w}; return v; }

/* A four-component type of 8-byte T with an explicit alignment (NAME4_16a, NAME4_32a). */
#define MOCCUDA_VECTOR4_ALIGNED(T, NAME, ALIGN)                                                    \
    struct __attribute__((aligned(ALIGN))) NAME##4_##ALIGN##a { T x, y, z, w; };                  \
    typedef struct NAME##4_##ALIGN##a NAME##4_##ALIGN##a;                                         \
    static inline __host__ __device__ NAME##4_##ALIGN##a make_##NAME##4_##ALIGN##a(T x, T y, T z, T w) \
    { NAME##4_##ALIGN##a v = {x, y, z, w}; return v; }

MOCCUDA_VECTOR_FAMILY(signed char, char, 2, 4)
MOCCUDA_VECTOR_FAMILY(unsigned char, uchar, 2, 4)
MOCCUDA_VECTOR_FAMILY(short, short, 4, 8)
MOCCUDA_VECTOR_FAMILY(unsigned short, ushort, 4, 8)
MOCCUDA_VECTOR_FAMILY(int, int, 8, 16)
MOCCUDA_VECTOR_FAMILY(unsigned int, uint, 8, 16)
MOCCUDA_VECTOR_FAMILY(long, long, 2 * sizeof(long), 16)
MOCCUDA_VECTOR_FAMILY(unsigned long, ulong, 2 * sizeof(long), 16)
MOCCUDA_VECTOR_FAMILY(long long, longlong, 16, 16)
MOCCUDA_VECTOR_FAMILY(unsigned long long, ulonglong, 16, 16)
MOCCUDA_VECTOR_FAMILY(float, float, 8, 16)
MOCCUDA_VECTOR_FAMILY(double, double, 16, 16)

MOCCUDA_VECTOR4_ALIGNED(long, long, 16)
MOCCUDA_VECTOR4_ALIGNED(long, long, 32)
MOCCUDA_VECTOR4_ALIGNED(unsigned long, ulong, 16)
MOCCUDA_VECTOR4_ALIGNED(unsigned long, ulong, 32)
MOCCUDA_VECTOR4_ALIGNED(long long, longlong, 16)
MOCCUDA_VECTOR4_ALIGNED(long long, longlong, 32)
MOCCUDA_VECTOR4_ALIGNED(unsigned long long, ulonglong, 16)
MOCCUDA_VECTOR4_ALIGNED(unsigned long long, ulonglong, 32)
MOCCUDA_VECTOR4_ALIGNED(double, double, 16)
MOCCUDA_VECTOR4_ALIGNED(double, double, 32)

#undef MOCCUDA_VECTOR_FAMILY
#undef MOCCUDA_VECTOR4_ALIGNED

/* A launch's grid or block extent: uint3 with every component defaulting to 1. */
#ifdef __cplusplus
struct dim3 {
    unsigned int x, y, z;
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
#else
struct dim3 { unsigned int x, y, z; };
#endif
typedef struct dim3 dim3;

#endif /* MOCCUDA_VECTOR_TYPES_H */
