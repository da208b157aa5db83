/* MocCUDA: cuda_profiler_api.h.  Profiling ranges mark what an attached profiler records; with
 * no GPU profiler there is nothing to start or stop, and both calls succeed. */
#ifndef MOCCUDA_CUDA_PROFILER_API_H
#define MOCCUDA_CUDA_PROFILER_API_H
#define __CUDA_PROFILER_API_H__

#include "cuda_runtime_api.h"

static inline cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
static inline cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

#endif
