// Guards with a lower side (index >= limit) folded into the thread loop's start, and the flag
// reset before a guard (Rodinia's `computed = false;`) run by a loop of its own.  Each kernel is
// checked bit for bit against the same arithmetic on the host.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define T 16
#define STEPS 2
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))

// hotspot's pyramid in two dimensions: T x T tiles compute (T - 2 STEPS)^2 cells over STEPS steps.
__global__ void halo2d(const float *in, float *out, int rows, int cols, float k)
{
    __shared__ float cur[T][T];
    __shared__ float nxt[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int small = T - 2 * STEPS;
    int blkY = small * blockIdx.y - STEPS, blkX = small * blockIdx.x - STEPS;
    int y = blkY + ty, x = blkX + tx;
    int validYmin = (blkY < 0) ? -blkY : 0;
    int validYmax = (blkY + T - 1 > rows - 1) ? T - 1 - (blkY + T - rows) : T - 1;
    int validXmin = (blkX < 0) ? -blkX : 0;
    int validXmax = (blkX + T - 1 > cols - 1) ? T - 1 - (blkX + T - cols) : T - 1;
    int N = ty - 1, S = ty + 1, W = tx - 1, E = tx + 1;
    N = (N < validYmin) ? validYmin : N;
    S = (S > validYmax) ? validYmax : S;
    W = (W < validXmin) ? validXmin : W;
    E = (E > validXmax) ? validXmax : E;
    if (IN_RANGE(y, 0, rows - 1) && IN_RANGE(x, 0, cols - 1))
        cur[ty][tx] = in[y * cols + x];
    __syncthreads();
    bool computed;
    for (int i = 0; i < STEPS; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, T - i - 2) && IN_RANGE(ty, i + 1, T - i - 2) &&
            IN_RANGE(tx, validXmin, validXmax) && IN_RANGE(ty, validYmin, validYmax)) {
            computed = true;
            nxt[ty][tx] = cur[ty][tx] + k * (cur[N][tx] + cur[S][tx] + cur[ty][W] + cur[ty][E] - 4.0 * cur[ty][tx]);
        }
        __syncthreads();
        if (i == STEPS - 1)
            break;
        if (computed)
            cur[ty][tx] = nxt[ty][tx];
        __syncthreads();
    }
    if (computed)
        out[y * cols + x] = nxt[ty][tx];
}

static void halo2d_host(const float *in, float *out, int rows, int cols, float k)
{
    static float cur[64 * 64], nxt[64 * 64];
    memcpy(cur, in, rows * cols * sizeof(float));
    for (int i = 0; i < STEPS; i++) {
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < cols; x++) {
                int N = y > 0 ? y - 1 : 0, S = y < rows - 1 ? y + 1 : rows - 1;
                int W = x > 0 ? x - 1 : 0, E = x < cols - 1 ? x + 1 : cols - 1;
                float c = cur[y * cols + x];
                nxt[y * cols + x] = c + k * (cur[N * cols + x] + cur[S * cols + x] + cur[y * cols + W] + cur[y * cols + E] - 4.0 * c);
            }
        memcpy(cur, nxt, rows * cols * sizeof(float));
    }
    memcpy(out, nxt, rows * cols * sizeof(float));
}

// A grid-wide index with both sides guarded, no shared memory: one thread loop.
__global__ void interior(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < n - 1)
        out[i] = in[i - 1] + in[i + 1];
}

// A strict lower side whose limit may be negative (every thread passes) or past the block.
__global__ void above(int *out, int lo)
{
    int t = threadIdx.x;
    if (t > lo)
        out[blockIdx.x * blockDim.x + t] += t + lo;
}

// The guard through a bool holding its comparisons (pathfinder's `isValid`).
__global__ void through_flag(int *out, int lo, int hi)
{
    int t = threadIdx.x;
    bool ok = IN_RANGE(t, lo, hi);
    if (ok)
        out[blockIdx.x * blockDim.x + t] = 3 * t;
}

int main()
{
    int bad = 0;
    const int rows = 37, cols = 45;
    static float in[rows * cols], out[rows * cols], ref[rows * cols];
    for (int i = 0; i < rows * cols; i++)
        in[i] = (float)((i * 53) % 97) / 9.0f;
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof in);
    cudaMalloc(&d_out, sizeof out);
    cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
    int small = T - 2 * STEPS;
    dim3 grid((cols + small - 1) / small, (rows + small - 1) / small), block(T, T);
    halo2d<<<grid, block>>>(d_in, d_out, rows, cols, 0.1f);
    cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    halo2d_host(in, ref, rows, cols, 0.1f);
    if (memcmp(out, ref, sizeof out) != 0) {
        printf("halo2d differs\n");
        bad = 1;
    }

    const int n = 1000;
    static float a[n], b[n];
    for (int i = 0; i < n; i++)
        a[i] = (float)i * 0.5f, b[i] = -1.0f;
    cudaMemcpy(d_in, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(d_out, b, sizeof b, cudaMemcpyHostToDevice);
    interior<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    cudaMemcpy(b, d_out, sizeof b, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) {
        float want = (i >= 1 && i < n - 1) ? a[i - 1] + a[i + 1] : -1.0f;
        if (b[i] != want) {
            printf("interior %d: %g != %g\n", i, b[i], want);
            bad = 1;
            break;
        }
    }

    const int G = 3, B = 64;
    int c[G * B], *d_c;
    cudaMalloc(&d_c, sizeof c);
    const int los[] = {-5, 10, 63, 100};
    for (int lo : los) {
        memset(c, 0, sizeof c);
        cudaMemcpy(d_c, c, sizeof c, cudaMemcpyHostToDevice);
        above<<<G, B>>>(d_c, lo);
        cudaMemcpy(c, d_c, sizeof c, cudaMemcpyDeviceToHost);
        for (int i = 0; i < G * B; i++) {
            int t = i % B, want = t > lo ? t + lo : 0;
            if (c[i] != want) {
                printf("above(%d) %d: %d != %d\n", lo, i, c[i], want);
                bad = 1;
                break;
            }
        }
    }
    memset(c, 0, sizeof c);
    cudaMemcpy(d_c, c, sizeof c, cudaMemcpyHostToDevice);
    through_flag<<<G, B>>>(d_c, 7, 40);
    cudaMemcpy(c, d_c, sizeof c, cudaMemcpyDeviceToHost);
    for (int i = 0; i < G * B; i++) {
        int t = i % B, want = (t >= 7 && t <= 40) ? 3 * t : 0;
        if (c[i] != want) {
            printf("through_flag %d: %d != %d\n", i, c[i], want);
            bad = 1;
            break;
        }
    }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
