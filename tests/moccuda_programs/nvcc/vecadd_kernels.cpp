// The CPU implementation of vecadd.cu's kernel `vadd`, as a kernel library exports it: written
// by hand here (cuda2cpu --emit=kernel-library is to generate such files).
#include <cuda_runtime.h>

extern "C" void moccuda_kernel__Z4vaddPKfS0_Pfi(dim3 grid, dim3 block, void **args, size_t, cudaStream_t)
{
    const float *a = *static_cast<const float **>(args[0]);
    const float *b = *static_cast<const float **>(args[1]);
    float *c = *static_cast<float **>(args[2]);
    int n = *static_cast<int *>(args[3]);
#pragma omp parallel for
    for (unsigned int bx = 0; bx < grid.x; ++bx)
        for (unsigned int tx = 0; tx < block.x; ++tx) {
            int i = (int)(bx * block.x + tx);
            if (i < n)
                c[i] = a[i] + b[i];
        }
}
