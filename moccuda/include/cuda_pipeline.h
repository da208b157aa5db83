/* MocCUDA: <cuda_pipeline.h>: the pipeline primitives (cuda_pipeline_primitives.h). */
#ifndef MOCCUDA_CUDA_PIPELINE_H
#define MOCCUDA_CUDA_PIPELINE_H

#include "cuda_pipeline_primitives.h"

#endif /* MOCCUDA_CUDA_PIPELINE_H */
