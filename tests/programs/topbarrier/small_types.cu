// Narrow integer and bool types in kernels: unsigned char image thresholding with integer
// promotion, short accumulation with wrap-around on the cast back, and a bool kernel argument.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void threshold(const unsigned char *img, unsigned char *mask, short *grad, bool invert,
                          unsigned char level, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x < w && y < h) {
        unsigned char p = img[y * w + x];
        bool on = p > level;
        if (invert)
            on = !on;
        mask[y * w + x] = on ? (unsigned char)255 : (unsigned char)0;
        unsigned char q = x + 1 < w ? img[y * w + x + 1] : p;
        short d = (short)(q - p);      // promoted to int, then narrowed
        grad[y * w + x] = (short)(d * 300);  // may wrap: defined modulo 2^16 since C++20
    }
}

int main()
{
    const int w = 1001, h = 97;
    std::vector<unsigned char> img(w * h), mask(w * h);
    std::vector<short> grad(w * h);
    for (int i = 0; i < w * h; ++i)
        img[i] = (unsigned char)((i * 73 + (i >> 5)) & 0xFF);
    unsigned char *dimg, *dmask;
    short *dgrad;
    cudaMalloc(&dimg, w * h);
    cudaMalloc(&dmask, w * h);
    cudaMalloc(&dgrad, w * h * sizeof(short));
    cudaMemcpy(dimg, img.data(), w * h, cudaMemcpyHostToDevice);
    for (int pass = 0; pass < 2; ++pass) {
        bool invert = pass == 1;
        unsigned char level = 100;
        threshold<<<dim3((w + 127) / 128, h), 128>>>(dimg, dmask, dgrad, invert, level, w, h);
        cudaDeviceSynchronize();
        cudaMemcpy(mask.data(), dmask, w * h, cudaMemcpyDeviceToHost);
        cudaMemcpy(grad.data(), dgrad, w * h * sizeof(short), cudaMemcpyDeviceToHost);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                unsigned char p = img[y * w + x];
                bool on = (p > level) != invert;
                unsigned char q = x + 1 < w ? img[y * w + x + 1] : p;
                short d = (short)(q - p);
                short g = (short)(d * 300);
                if (mask[y * w + x] != (on ? 255 : 0) || grad[y * w + x] != g) {
                    printf("FAIL: pass %d pixel (%d, %d): (%d, %d), expected (%d, %d)\n", pass, x, y,
                           mask[y * w + x], grad[y * w + x], on ? 255 : 0, g);
                    return 1;
                }
            }
    }
    cudaFree(dimg);
    cudaFree(dmask);
    cudaFree(dgrad);
    printf("PASS\n");
    return 0;
}
