// inline-for-interchange: streamcluster's shape, each thread the weighted squared distance of
// its point to point x over DIM feature-major coordinates (coord[i * num + p]) summed in a
// __device__ function.  Inlined, the loop moves outside the thread loop; every thread's sum keeps
// its order, so the results equal the host's bit for bit.  Also a call as a statement, and calls
// that stay calls: under &&, in a function that returns early, and a point-major loop (each
// thread alone already reads consecutive floats: nothing to gain).
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct Point { float weight; long assign; float cost; };

__device__ float dist(int p1, int p2, int num, int dim, float *coord)
{
    float sum = 0.0f;
    for (int i = 0; i < dim; i++) {
        float d = coord[(i * num) + p1] - coord[(i * num) + p2];
        sum += d * d;
    }
    return sum;
}

__global__ void compute_cost(int num, int dim, long x, Point *p, float *coord, float *gain, bool *switched)
{
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    const int tid = blockDim.x * bid + threadIdx.x;
    if (tid < num) {
        float cost = dist(tid, x, num, dim, coord) * p[tid].weight;
        if (cost < p[tid].cost) {
            switched[tid] = true;
            gain[tid] = cost - p[tid].cost;
        } else {
            gain[tid] = p[tid].cost - cost;
        }
    }
}

__device__ void column_sums(int p, int num, int dim, const float *coord, float *out)
{
    float s = 0.0f;
    for (int i = 0; i < dim; i++)
        s += coord[i * num + p] * (float)(i + 1);
    out[p] = s;
}

__global__ void statement_call(int num, int dim, const float *coord, float *out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < num)
        column_sums(p, num, dim, coord, out);
}

__global__ void conditional_call(int num, int dim, long x, float *coord, float *out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < num) {
        bool near = p % 3 == 0 && dist(p, x, num, dim, coord) < 50.0f;
        out[p] = near ? 1.0f : 0.0f;
    }
}

__device__ float capped_dist(int p1, int p2, int num, int dim, const float *coord)
{
    float sum = 0.0f;
    for (int i = 0; i < dim; i++) {
        float d = coord[(i * num) + p1] - coord[(i * num) + p2];
        sum += d * d;
    }
    if (sum > 100.0f)
        return 100.0f;
    return sum;
}

__global__ void early_return(int num, int dim, long x, const float *coord, float *out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < num)
        out[p] = capped_dist(p, x, num, dim, coord);
}

__device__ float row_sum(int p, int dim, const float *rows)
{
    float s = 0.0f;
    for (int i = 0; i < dim; i++)
        s += rows[p * dim + i];
    return s;
}

__global__ void point_major(int num, int dim, const float *rows, float *out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < num)
        out[p] = row_sum(p, dim, rows);
}

static float host_dist(int p1, int p2, int num, int dim, const float *coord)
{
    float sum = 0.0f;
    for (int i = 0; i < dim; i++) {
        float d = coord[(i * num) + p1] - coord[(i * num) + p2];
        sum += d * d;
    }
    return sum;
}

static int differs(const char *what, int i, float got, float want)
{
    if (memcmp(&got, &want, sizeof got) == 0)
        return 0;
    printf("%s[%d] = %.9g, host %.9g\n", what, i, got, want);
    return 1;
}

int main()
{
    const int num = 1000, dim = 37, block = 128;  // num is no multiple of the block: the guard matters
    const long x = 417;
    float *coord, *gain, *sums, *near, *capped, *rows;
    Point *p;
    bool *switched;
    cudaMallocManaged(&coord, sizeof(float) * num * dim);
    cudaMallocManaged(&rows, sizeof(float) * num * dim);
    cudaMallocManaged(&gain, sizeof(float) * num);
    cudaMallocManaged(&sums, sizeof(float) * num);
    cudaMallocManaged(&near, sizeof(float) * num);
    cudaMallocManaged(&capped, sizeof(float) * num);
    cudaMallocManaged(&p, sizeof(Point) * num);
    cudaMallocManaged(&switched, sizeof(bool) * num);
    unsigned seed = 12345u;
    for (int i = 0; i < num * dim; i++) {
        seed = seed * 1103515245u + 12345u;
        coord[i] = (float)((seed >> 8) % 10000) / 997.0f;
        rows[i] = coord[i] * 0.5f - 1.0f;
    }
    for (int i = 0; i < num; i++) {
        p[i].weight = 1.0f + (float)(i % 7) / 8.0f;
        p[i].assign = i % 5;
        p[i].cost = (float)(i % 400);
        switched[i] = false;
    }
    const int blocks = (num + block - 1) / block;
    compute_cost<<<dim3((blocks + 1) / 2, 2), block>>>(num, dim, x, p, coord, gain, switched);
    statement_call<<<blocks, block>>>(num, dim, coord, sums);
    conditional_call<<<blocks, block>>>(num, dim, x, coord, near);
    early_return<<<blocks, block>>>(num, dim, x, coord, capped);
    float *row_sums;
    cudaMallocManaged(&row_sums, sizeof(float) * num);
    point_major<<<blocks, block>>>(num, dim, rows, row_sums);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < num; i++) {
        float cost = host_dist(i, (int)x, num, dim, coord) * p[i].weight;
        bad += differs("gain", i, gain[i], cost < p[i].cost ? cost - p[i].cost : p[i].cost - cost);
        if (switched[i] != (cost < p[i].cost)) {
            printf("switched[%d] = %d\n", i, switched[i]);
            bad++;
        }
        float s = 0.0f, r = 0.0f;
        for (int f = 0; f < dim; f++) {
            s += coord[f * num + i] * (float)(f + 1);
            r += rows[i * dim + f];
        }
        bad += differs("sums", i, sums[i], s);
        bad += differs("near", i, near[i], i % 3 == 0 && host_dist(i, (int)x, num, dim, coord) < 50.0f ? 1.0f : 0.0f);
        float d = host_dist(i, (int)x, num, dim, coord);
        bad += differs("capped", i, capped[i], d > 100.0f ? 100.0f : d);
        bad += differs("row_sums", i, row_sums[i], r);
        if (bad > 5)
            break;
    }
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad != 0;
}
