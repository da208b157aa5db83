/* MocCUDA: cooperative groups (thread blocks and warp tiles).
 *
 * Parse mode declares the API so that clang type-checks kernels; cuda2cpu's front end replaces
 * every member call (sync, thread_rank, shfl, ballot, ...) with its own IR (warp collectives,
 * barriers, index arithmetic).  Compile mode keeps only the group types, as empty values, and the
 * functions that make them: a group variable may stay in the translated code, but any operation
 * the translator missed is a compile error, not a silently wrong program.
 */
#ifndef MOCCUDA_COOPERATIVE_GROUPS_H
#define MOCCUDA_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

namespace cooperative_groups {

#ifdef __CUDA2CPU_PARSE__
class thread_group {
public:
    __device__ void sync() const;
    __device__ unsigned long long thread_rank() const;
    __device__ unsigned long long size() const;
    __device__ unsigned long long num_threads() const;
};

class thread_block : public thread_group {
public:
    __device__ dim3 group_index() const;
    __device__ dim3 thread_index() const;
    __device__ dim3 group_dim() const;
    __device__ dim3 dim_threads() const;
};

template <unsigned int Size>
class thread_block_tile : public thread_group {
public:
    template <class T> __device__ T shfl(T var, int src_rank) const;
    template <class T> __device__ T shfl_up(T var, unsigned int delta) const;
    template <class T> __device__ T shfl_down(T var, unsigned int delta) const;
    template <class T> __device__ T shfl_xor(T var, unsigned int lane_mask) const;
    __device__ int any(int predicate) const;
    __device__ int all(int predicate) const;
    __device__ unsigned int ballot(int predicate) const;
    template <class T> __device__ unsigned int match_any(T value) const;
    template <class T> __device__ unsigned int match_all(T value, int &pred) const;
    __device__ unsigned long long meta_group_rank() const;
    __device__ unsigned long long meta_group_size() const;
};

__device__ thread_block this_thread_block();
template <unsigned int Size, class ParentT>
__device__ thread_block_tile<Size> tiled_partition(const ParentT &parent);
__device__ void sync(const thread_group &group);
#else
class thread_group {};
class thread_block : public thread_group {};
template <unsigned int Size> class thread_block_tile : public thread_group {};

inline thread_block this_thread_block() { return thread_block(); }
template <unsigned int Size, class ParentT>
inline thread_block_tile<Size> tiled_partition(const ParentT &) { return thread_block_tile<Size>(); }
#endif /* __CUDA2CPU_PARSE__ */

}  // namespace cooperative_groups

#endif /* MOCCUDA_COOPERATIVE_GROUPS_H */
