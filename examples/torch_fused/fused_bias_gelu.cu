// A fused elementwise op as a PyTorch CUDA extension: y = gelu(x + bias) (tanh form) with the
// bias broadcast over rows, and its gradient, in one pass each; dispatched over float, double and
// half (math in float for half, as PyTorch's CUDA kernels do with at::opmath_type).
#include <torch/extension.h>
#include <ATen/OpMathType.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
#define CHECK_INPUT(x) CHECK_CUDA(x); TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")

template <typename T>
__device__ __forceinline__ T gelu_tanh(T v)
{
    const T k = T(0.7978845608028654);  // sqrt(2 / pi)
    return T(0.5) * v * (T(1) + tanh(k * (v + T(0.044715) * v * v * v)));
}

template <typename T>
__device__ __forceinline__ T gelu_tanh_grad(T v)
{
    const T k = T(0.7978845608028654);
    const T inner = k * (v + T(0.044715) * v * v * v);
    const T t = tanh(inner);
    return T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t * t) * k * (T(1) + T(3) * T(0.044715) * v * v);
}

template <typename scalar_t, typename opmath_t>
__global__ void bias_gelu_forward(const scalar_t *__restrict__ x, const scalar_t *__restrict__ bias,
                                  scalar_t *__restrict__ y, int64_t n, int64_t columns)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const opmath_t v = static_cast<opmath_t>(x[i]) + static_cast<opmath_t>(bias[i % columns]);
        y[i] = static_cast<scalar_t>(gelu_tanh(v));
    }
}

template <typename scalar_t, typename opmath_t>
__global__ void bias_gelu_backward(const scalar_t *__restrict__ grad_y, const scalar_t *__restrict__ x,
                                   const scalar_t *__restrict__ bias, scalar_t *__restrict__ grad_x, int64_t n,
                                   int64_t columns)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const opmath_t v = static_cast<opmath_t>(x[i]) + static_cast<opmath_t>(bias[i % columns]);
        grad_x[i] = static_cast<scalar_t>(static_cast<opmath_t>(grad_y[i]) * gelu_tanh_grad(v));
    }
}

static int grid_for(int64_t n, int threads)
{
    // A grid-stride loop: enough blocks to fill the device, no more than the work needs.
    const int64_t wanted = (n + threads - 1) / threads;
    const int64_t most = 4LL * at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    return static_cast<int>(std::max<int64_t>(1, std::min(wanted, most)));
}

torch::Tensor forward(torch::Tensor x, torch::Tensor bias)
{
    CHECK_INPUT(x);
    CHECK_INPUT(bias);
    TORCH_CHECK(x.size(-1) == bias.numel(), "bias must have one entry per column");
    const c10::cuda::CUDAGuard device_guard(x.device());
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "bias_gelu_forward", [&] {
        bias_gelu_forward<scalar_t, at::opmath_type<scalar_t>><<<grid_for(n, 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
            x.data_ptr<scalar_t>(), bias.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n, bias.numel());
    });
    AT_CUDA_CHECK(cudaGetLastError());
    return y;
}

torch::Tensor backward(torch::Tensor grad_y, torch::Tensor x, torch::Tensor bias)
{
    CHECK_INPUT(x);
    CHECK_INPUT(bias);
    grad_y = grad_y.contiguous();
    const c10::cuda::CUDAGuard device_guard(x.device());
    auto grad_x = torch::empty_like(x);
    const int64_t n = x.numel();
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "bias_gelu_backward", [&] {
        bias_gelu_backward<scalar_t, at::opmath_type<scalar_t>><<<grid_for(n, 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
            grad_y.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), bias.data_ptr<scalar_t>(),
            grad_x.data_ptr<scalar_t>(), n, bias.numel());
    });
    AT_CUDA_CHECK(cudaGetLastError());
    return grad_x;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &forward, "gelu(x + bias), tanh approximation");
    m.def("backward", &backward, "gradient of gelu(x + bias) with respect to x");
}
