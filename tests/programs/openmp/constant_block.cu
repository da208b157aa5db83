// Kernels whose every launch gives one constant block size read blockDim as that constant
// (constant-block); the others read the launch's.  Each result is checked exactly against the
// host: integer sums, and float sums added in the tree's own order, so the bits must match.
#include <cstdio>
#include <cuda_runtime.h>

// The CUDA SDK's tree reduction (sequential addressing), always launched with 256 threads.
__global__ void reduce_sdk(const int *g_idata, int *g_odata, int n)
{
    __shared__ int sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < unsigned(n)) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// The same tree over floats: the host adds in the same order, so the sums are bit-identical.
__global__ void reduce_float(const float *in, float *out, int n)
{
    __shared__ float sdata[128];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < unsigned(n)) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// A 2-D block, always 16 x 8: threadIdx.y and blockDim.y matter.
__global__ void transpose_tile(const int *in, int *out, int rows, int cols)
{
    __shared__ int tile[8][17];
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (threadIdx.x < 16 && row < rows && col < cols) tile[threadIdx.y][threadIdx.x] = in[row * cols + col];
    __syncthreads();
    if (row < rows && col < cols) out[col * rows + row] = tile[threadIdx.y][threadIdx.x] + (int)(blockDim.x * blockDim.y);
}

// Launched with two block sizes: no constant.
__global__ void scale(int *data, int n, int factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * factor + (int)blockDim.x;
}

static float tree_sum(const float *in, int first, int n, int width)
{
    float s[128];
    for (int t = 0; t < width; ++t)
        s[t] = first + t < n ? in[first + t] : 0.0f;
    for (int stride = width / 2; stride > 0; stride >>= 1)
        for (int t = 0; t < stride; ++t)
            s[t] += s[t + stride];
    return s[0];
}

int main()
{
    int failures = 0;
    const int n = 100003;  // not a multiple of the block: the last block takes the guarded path
    int *in, *partial;
    cudaMallocManaged(&in, n * sizeof(int));
    const int blocks = (n + 255) / 256;
    cudaMallocManaged(&partial, blocks * sizeof(int));
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000 - 500;
    reduce_sdk<<<blocks, 256>>>(in, partial, n);
    cudaDeviceSynchronize();
    for (int b = 0; b < blocks; ++b) {
        int expected = 0;
        for (int i = b * 256; i < n && i < (b + 1) * 256; ++i) expected += in[i];
        if (partial[b] != expected) {
            printf("reduce_sdk: block %d sum %d, expected %d\n", b, partial[b], expected);
            ++failures;
            break;
        }
    }

    float *fin, *fout;
    const int fblocks = (n + 127) / 128;
    cudaMallocManaged(&fin, n * sizeof(float));
    cudaMallocManaged(&fout, fblocks * sizeof(float));
    for (int i = 0; i < n; ++i) fin[i] = 1.0f / (float)(1 + i % 97) - 0.01f * (float)(i % 13);
    reduce_float<<<fblocks, 128>>>(fin, fout, n);
    cudaDeviceSynchronize();
    for (int b = 0; b < fblocks; ++b) {
        float expected = tree_sum(fin, b * 128, n, 128);
        if (fout[b] != expected) {
            printf("reduce_float: block %d sum %.9g, expected %.9g\n", b, fout[b], expected);
            ++failures;
            break;
        }
    }

    const int rows = 37, cols = 53;
    int *matrix, *transposed;
    cudaMallocManaged(&matrix, rows * cols * sizeof(int));
    cudaMallocManaged(&transposed, rows * cols * sizeof(int));
    for (int i = 0; i < rows * cols; ++i) matrix[i] = 3 * i + 1;
    transpose_tile<<<dim3((cols + 15) / 16, (rows + 7) / 8), dim3(16, 8)>>>(matrix, transposed, rows, cols);
    cudaDeviceSynchronize();
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (transposed[c * rows + r] != matrix[r * cols + c] + 128) {
                printf("transpose_tile: (%d, %d) is %d, expected %d\n", r, c, transposed[c * rows + r],
                       matrix[r * cols + c] + 128);
                ++failures;
                r = rows;
                break;
            }

    for (int i = 0; i < n; ++i) in[i] = i;
    scale<<<(n + 63) / 64, 64>>>(in, n, 2);
    scale<<<(n + 127) / 128, 128>>>(in, n, 3);
    cudaDeviceSynchronize();
    for (int i = 0; i < n; ++i)
        if (in[i] != (2 * i + 64) * 3 + 128) {
            printf("scale: data[%d] = %d, expected %d\n", i, in[i], (2 * i + 64) * 3 + 128);
            ++failures;
            break;
        }

    cudaFree(in);
    cudaFree(partial);
    cudaFree(fin);
    cudaFree(fout);
    cudaFree(matrix);
    cudaFree(transposed);
    if (failures == 0) printf("PASS\n");
    return failures != 0;
}
