/* MocCUDA: cg::memcpy_async, cg::wait and cg::wait_prior (see cooperative_groups.h for the two
 * modes).  On a GPU the group's threads start an asynchronous copy together and cg::wait(group)
 * waits for it and synchronizes the group; until then the destination is undefined.  A CPU has
 * no copy engine to overlap with, so cuda2cpu translates the copy into a plain copy that the
 * group's first thread makes (moccuda::group_copy) and the wait into the group's barrier, after
 * which every thread of the group sees the copied data, as on a GPU. */
#ifndef MOCCUDA_COOPERATIVE_GROUPS_MEMCPY_ASYNC_H
#define MOCCUDA_COOPERATIVE_GROUPS_MEMCPY_ASYNC_H

#include "../cooperative_groups.h"

#ifdef __CUDA2CPU_PARSE__
namespace cooperative_groups {
/* Declared so that clang type-checks the calls; cuda2cpu replaces each. */
template <class Group, class Elem, class Size>
__device__ void memcpy_async(const Group &group, Elem *dst, const Elem *src, const Size &bytes);
template <class Group>
__device__ void wait(const Group &group);
template <unsigned int Stages, class Group>
__device__ void wait_prior(const Group &group);
}  // namespace cooperative_groups
#else
#include <cstddef>
#include <cstring>

namespace moccuda {
/* The copy of a group's cg::memcpy_async: made once, by the group's first thread (`leader`); the
 * group's cg::wait is its barrier.  `bytes` may be a size or cuda::aligned_size_t. */
template <class Size>
inline void group_copy(bool leader, void *dst, const void *src, const Size &bytes)
{
    if (leader)
        std::memcpy(dst, src, static_cast<std::size_t>(bytes));
}
}  // namespace moccuda
#endif /* __CUDA2CPU_PARSE__ */

#endif /* MOCCUDA_COOPERATIVE_GROUPS_MEMCPY_ASYNC_H */
