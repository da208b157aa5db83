/* MocCUDA: cg::reduce and its operators (see cooperative_groups.h for the two modes).  cuda2cpu
 * translates cg::reduce(tile, value, op) into a warp collective; the operator types stay, so that
 * code naming them still compiles. */
#ifndef MOCCUDA_COOPERATIVE_GROUPS_REDUCE_H
#define MOCCUDA_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const { return a ^ b; } };

#ifdef __CUDA2CPU_PARSE__
/* Defined (never emitted: cuda2cpu replaces the call) so that an operator whose type has no
 * linkage, a lambda's, may be used outside of templates too. */
template <class Group, class T, class Op>
__device__ T reduce(const Group &, T value, Op) { return value; }
#endif

}  // namespace cooperative_groups

#endif /* MOCCUDA_COOPERATIVE_GROUPS_REDUCE_H */
