// Host-side device checks as PyTorch extensions write them, on a stand-in for at::Tensor (no
// PyTorch needed; standin/torch_standin.h plays its headers): with the torch host rewrite, the
// checks accept the CPU "tensor".
#include <cstdio>
#include <stdexcept>

#include <torch_standin.h>

#define CHECK_CUDA(x) if (!(x).device().is_cuda()) throw std::runtime_error(#x " must be a CUDA tensor")

__global__ void twice(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2;
}

void twice_op(torch::Tensor x)
{
    CHECK_CUDA(x);
    const torch::Tensor *p = &x;
    if (!p->is_cuda() || x.device().type() != torch::kCUDA || x.device().type() != c10::DeviceType::CUDA)
        throw std::runtime_error("x must be a CUDA tensor");
    twice<<<(x.n + 31) / 32, 32>>>(x.data, x.n);
    cudaDeviceSynchronize();
}

int main()
{
    float data[100];
    for (int i = 0; i < 100; ++i)
        data[i] = i;
    torch::Tensor x{data, 100};
    try {
        twice_op(x);
    } catch (const std::exception &e) {
        printf("FAIL: %s\n", e.what());
        return 1;
    }
    for (int i = 0; i < 100; ++i)
        if (data[i] != 2.0f * i) {
            printf("FAIL at %d\n", i);
            return 1;
        }
    printf("PASS\n");
    return 0;
}
