// The CPU implementation of features.cu's kernel `block_sums`, written by hand as a kernel
// library exports it: blocks in parallel, each block's threads serial between the barriers.
#include <cuda_runtime.h>

#include <vector>

extern "C" void moccuda_kernel__Z10block_sumsPKiPii(dim3 grid, dim3 block, void **args, size_t, cudaStream_t)
{
    const int *in = *static_cast<const int **>(args[0]);
    int *out = *static_cast<int **>(args[1]);
    int n = *static_cast<int *>(args[2]);
    const int offset = *static_cast<int *>(moccuda_device_variable("offset"));
#pragma omp parallel for
    for (unsigned int bx = 0; bx < grid.x; ++bx) {
        std::vector<int> partial(block.x);
        for (unsigned int tx = 0; tx < block.x; ++tx) {
            int i = (int)(bx * block.x + tx);
            partial[tx] = i < n ? in[i] + offset : 0;
        }
        for (unsigned int stride = block.x / 2; stride > 0; stride /= 2)
            for (unsigned int tx = 0; tx < stride; ++tx)
                partial[tx] += partial[tx + stride];
        out[bx] = partial[0];
    }
}
