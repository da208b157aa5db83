// 2-D 5-point stencil with a 1-element halo staged in a shared tile [18][18]; each block loops
// over several tiles down the image (block-uniform trip count) with two barriers in the loop,
// and the halo is loaded cooperatively by a strided loop.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define B 16
#define R 1
#define T (B + 2 * R)

__global__ void stencil2d(const int *in, int *out, int w, int h)
{
    __shared__ int tile[T][T];
    int tid = threadIdx.y * B + threadIdx.x;
    int x0 = blockIdx.x * B;
    for (int y0 = blockIdx.y * B; y0 < h; y0 += gridDim.y * B) {
        for (int k = tid; k < T * T; k += B * B) {
            int gx = x0 - R + k % T;
            int gy = y0 - R + k / T;
            tile[k / T][k % T] = gx >= 0 && gx < w && gy >= 0 && gy < h ? in[gy * w + gx] : 0;
        }
        __syncthreads();
        int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
        int cx = threadIdx.x + R, cy = threadIdx.y + R;
        if (x < w && y < h)
            out[y * w + x] = 4 * tile[cy][cx] - tile[cy - 1][cx] - tile[cy + 1][cx] - tile[cy][cx - 1] - tile[cy][cx + 1];
        __syncthreads();
    }
}

int main()
{
    const int w = 301, h = 403;
    std::vector<int> in(w * h), out(w * h);
    for (int i = 0; i < w * h; ++i)
        in[i] = (i * 2654435761u) % 1000u;
    int *din, *dout;
    cudaMalloc(&din, w * h * sizeof(int));
    cudaMalloc(&dout, w * h * sizeof(int));
    cudaMemcpy(din, in.data(), w * h * sizeof(int), cudaMemcpyHostToDevice);
    // Only 5 block rows: each block walks down about 5 tiles.
    stencil2d<<<dim3((w + B - 1) / B, 5), dim3(B, B)>>>(din, dout, w, h);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, w * h * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            auto at = [&](int xx, int yy) { return xx >= 0 && xx < w && yy >= 0 && yy < h ? in[yy * w + xx] : 0; };
            int e = 4 * at(x, y) - at(x, y - 1) - at(x, y + 1) - at(x - 1, y) - at(x + 1, y);
            if (out[y * w + x] != e) {
                printf("FAIL: out(%d, %d) = %d, expected %d\n", x, y, out[y * w + x], e);
                return 1;
            }
        }
    printf("PASS\n");
    return 0;
}
