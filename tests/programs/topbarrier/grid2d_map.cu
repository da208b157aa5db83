// 2-D grid of 2-D blocks (dim3(32, 8)) computing an image from its coordinates, with x and y
// guards for a size that is not a multiple of the block in either dimension.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void checker(unsigned *img, int width, int height, int cell)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        unsigned on = ((x / cell) + (y / cell)) % 2;
        img[y * width + x] = on ? 0xFFu : (unsigned)(x * 3 + y * 5) & 0x7Fu;
    }
}

int main()
{
    const int w = 1023, h = 517, cell = 7;
    std::vector<unsigned> img(w * h);
    unsigned *dimg;
    cudaMalloc(&dimg, w * h * sizeof(unsigned));
    dim3 block(32, 8);
    dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
    checker<<<grid, block>>>(dimg, w, h, cell);
    cudaDeviceSynchronize();
    cudaMemcpy(img.data(), dimg, w * h * sizeof(unsigned), cudaMemcpyDeviceToHost);
    cudaFree(dimg);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            unsigned on = ((x / cell) + (y / cell)) % 2;
            unsigned e = on ? 0xFFu : (unsigned)(x * 3 + y * 5) & 0x7Fu;
            if (img[y * w + x] != e) {
                printf("FAIL: img(%d, %d) = %u, expected %u\n", x, y, img[y * w + x], e);
                return 1;
            }
        }
    printf("PASS\n");
    return 0;
}
