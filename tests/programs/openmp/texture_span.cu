// texture-span: thread loops whose fetches are first + threadIdx.x read the texture's texels as
// one array when all of them are in range, and fetch as before otherwise.  Every kernel's result
// is checked against the host's, element by element: in-range reads, reads past either end of
// the texture (zero), a partial last block, an index that wraps in unsigned arithmetic, and
// indices the pass must leave alone.
#include <climits>
#include <cstdio>
#include <cstdlib>

texture<float, 1, cudaReadModeElementType> values_tex;
texture<int, 1, cudaReadModeElementType> ints_tex;

// kmeans' shape: feature-major rows, each thread one column; the index through a chain of locals.
__global__ void column_sums(float *out, int n, int rows)
{
    const unsigned int block = blockIdx.x;
    const unsigned int point = block * blockDim.x + threadIdx.x;
    if (point < n) {
        float sum = 0.0f;
        for (int r = 0; r < rows; r++) {
            int addr = point + r * n;
            float v = tex1Dfetch(values_tex, addr);
            sum += v * v;
        }
        out[point] = sum;
    }
}

// Shifted reads: past the end of the texture (and before its start) tex1Dfetch reads zero.
__global__ void shifted(float *out, int shift, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch(values_tex, i + shift) + 1.0f;
}

// threadIdx.x - 3 in unsigned arithmetic wraps at threads 0..2 of block 0: those read zero.
__global__ void wrapped(int *out, int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch(ints_tex, i - 3u);
}

// Indices the pass leaves alone: one thread index times two, and one read from memory.
__global__ void not_spans(int *out, const int *offsets, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch(ints_tex, 2 * i) + tex1Dfetch(ints_tex, offsets[0] + i);
}

static float host_value(long i, long size, const float *v) { return i >= 0 && i < size ? v[i] : 0.0f; }
static int host_int(long i, long size, const int *v) { return i >= 0 && i < size ? v[i] : 0; }

int main()
{
    const int n = 1000, rows = 7, size = n * rows;  // n: not a multiple of the block
    float *values = (float *)malloc(size * sizeof(float));
    int *ints = (int *)malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
        values[i] = (float)((i * 37) % 101) / 7.0f;
        ints[i] = i * 3 + 1;
    }
    float *d_values, *d_out;
    int *d_ints, *d_iout, *d_offsets;
    cudaMalloc(&d_values, size * sizeof(float));
    cudaMalloc(&d_ints, size * sizeof(int));
    cudaMalloc(&d_out, size * sizeof(float));
    cudaMalloc(&d_iout, size * sizeof(int));
    cudaMalloc(&d_offsets, sizeof(int));
    cudaMemcpy(d_values, values, size * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_ints, ints, size * sizeof(int), cudaMemcpyHostToDevice);
    const int offset = 5;
    cudaMemcpy(d_offsets, &offset, sizeof(int), cudaMemcpyHostToDevice);
    cudaBindTexture(NULL, values_tex, d_values, size * sizeof(float));
    cudaBindTexture(NULL, ints_tex, d_ints, size * sizeof(int));
    float *out = (float *)malloc(size * sizeof(float));
    int *iout = (int *)malloc(size * sizeof(int));
    int bad = 0;

    column_sums<<<(n + 127) / 128, 128>>>(d_out, n, rows);
    cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int p = 0; p < n; p++) {
        float sum = 0.0f;
        for (int r = 0; r < rows; r++) {
            float v = values[p + r * n];
            sum += v * v;
        }
        if (out[p] != sum && bad++ < 5)
            printf("column_sums[%d] = %g, expected %g\n", p, out[p], sum);
    }

    const int shifts[] = {0, 100, size - 300, size + 10, -50, -1000};
    for (int s = 0; s < 6; s++) {
        shifted<<<(size + 255) / 256, 256>>>(d_out, shifts[s], size);
        cudaMemcpy(out, d_out, size * sizeof(float), cudaMemcpyDeviceToHost);
        for (int i = 0; i < size; i++) {
            float expected = host_value((long)i + shifts[s], size, values) + 1.0f;
            if (out[i] != expected && bad++ < 5)
                printf("shifted by %d [%d] = %g, expected %g\n", shifts[s], i, out[i], expected);
        }
    }

    wrapped<<<(size + 63) / 64, 64>>>(d_iout, size);
    cudaMemcpy(iout, d_iout, size * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < size; i++) {
        int expected = host_int((long)(int)((unsigned)i - 3u), size, ints);
        if (iout[i] != expected && bad++ < 5)
            printf("wrapped[%d] = %d, expected %d\n", i, iout[i], expected);
    }

    not_spans<<<(n + 127) / 128, 128>>>(d_iout, d_offsets, n);
    cudaMemcpy(iout, d_iout, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) {
        int expected = host_int(2L * i, size, ints) + host_int((long)offset + i, size, ints);
        if (iout[i] != expected && bad++ < 5)
            printf("not_spans[%d] = %d, expected %d\n", i, iout[i], expected);
    }

    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
