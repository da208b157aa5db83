// Grid-stride loops with small fixed grids (including <<<1, 1>>>) using gridDim, and a 3-D
// block dim3(8, 4, 2) with a 3-D grid that uses threadIdx.z / blockIdx.z / blockDim.z.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void iota_stride(int *a, int n, int mult)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        a[i] = i * mult;
}

__global__ void volume(int *v, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz)
        v[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z;
}

int main()
{
    const int n = 100001;
    std::vector<int> a(n);
    int *da;
    cudaMalloc(&da, n * sizeof(int));
    const int configs[3][2] = {{4, 64}, {1, 1}, {7, 96}};
    for (int c = 0; c < 3; ++c) {
        iota_stride<<<configs[c][0], configs[c][1]>>>(da, n, c + 2);
        cudaDeviceSynchronize();
        cudaMemcpy(a.data(), da, n * sizeof(int), cudaMemcpyDeviceToHost);
        for (int i = 0; i < n; ++i)
            if (a[i] != i * (c + 2)) {
                printf("FAIL: config %d a[%d] = %d\n", c, i, a[i]);
                return 1;
            }
    }
    cudaFree(da);

    const int nx = 37, ny = 19, nz = 11;
    std::vector<int> v(nx * ny * nz);
    int *dv;
    cudaMalloc(&dv, nx * ny * nz * sizeof(int));
    dim3 block(8, 4, 2);
    dim3 grid((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2);
    volume<<<grid, block>>>(dv, nx, ny, nz);
    cudaDeviceSynchronize();
    cudaMemcpy(v.data(), dv, nx * ny * nz * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(dv);
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x)
                if (v[(z * ny + y) * nx + x] != x + 100 * y + 10000 * z) {
                    printf("FAIL: v(%d, %d, %d) = %d\n", x, y, z, v[(z * ny + y) * nx + x]);
                    return 1;
                }
    printf("PASS\n");
    return 0;
}
