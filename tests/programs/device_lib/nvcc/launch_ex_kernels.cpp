// The CPU implementation of launch_ex.cu's kernel, as a kernel library exports it (by hand).
#include <cuda_runtime.h>

extern "C" void moccuda_kernel__Z4axpbPiiii(dim3 grid, dim3 block, void **args, size_t, cudaStream_t)
{
    int *out = *static_cast<int **>(args[0]);
    int a = *static_cast<int *>(args[1]), b = *static_cast<int *>(args[2]), n = *static_cast<int *>(args[3]);
    for (unsigned int bx = 0; bx < grid.x; ++bx)
        for (unsigned int tx = 0; tx < block.x; ++tx) {
            int i = (int)(bx * block.x + tx);
            if (i < n)
                out[i] = a * i + b;
        }
}
