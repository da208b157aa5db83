// Exercises each ATen/c10/THC CUDA API that PyTorch extensions use, through MocCUDA's compat
// headers; test_torch_extension.py checks the answers against MocCUDA and PyTorch.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <THC/THC.h>

#include <string>
#include <vector>

// Row sums through a packed accessor, one block per row, a shared-memory tree per block.
template <typename scalar_t>
__global__ void row_sums(const at::PackedTensorAccessor32<scalar_t, 2, at::RestrictPtrTraits> in,
                         at::PackedTensorAccessor32<float, 1, at::RestrictPtrTraits> out)
{
    __shared__ float partial[64];
    float sum = 0;
    for (int j = threadIdx.x; j < in.size(1); j += blockDim.x)
        sum += static_cast<float>(in[blockIdx.x][j]);
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = 32; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = partial[0];
}

__global__ void fill(int *out, int value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = value;
}

torch::Tensor accessor_row_sums(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 2, "x must be a 2-D CUDA tensor");
    auto out = torch::empty({x.size(0)}, x.options().dtype(torch::kFloat));
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "row_sums", ([&] {
        row_sums<scalar_t><<<x.size(0), 64, 0, at::cuda::getCurrentCUDAStream()>>>(
            x.packed_accessor32<scalar_t, 2, at::RestrictPtrTraits>(),
            out.packed_accessor32<float, 1, at::RestrictPtrTraits>());
    }));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}

// Launches `fill` with `threads` per block, then C10_CUDA_KERNEL_LAUNCH_CHECK (throws on a bad
// configuration); returns what the kernel wrote.
torch::Tensor launch_checked(int64_t threads)
{
    auto out = torch::zeros({8}, torch::dtype(torch::kInt));
    fill<<<1, threads>>>(out.data_ptr<int>(), 7, 8);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}

void at_cuda_check(int64_t status) { AT_CUDA_CHECK(static_cast<cudaError_t>(status)); }
void thc_cuda_check(int64_t status) { THCudaCheck(static_cast<cudaError_t>(status)); }
int64_t thc_ceil_div(int64_t a, int64_t b) { return THCCeilDiv(a, b); }

std::vector<int64_t> device_properties()
{
    const cudaDeviceProp *p = at::cuda::getCurrentDeviceProperties();
    return {p->multiProcessorCount, p->warpSize, p->maxThreadsPerBlock, p->major, p->minor,
            at::cuda::warp_size(), at::cuda::getNumGPUs(), at::cuda::getDeviceProperties(0) == p};
}

std::string device_name() { return at::cuda::getCurrentDeviceProperties()->name; }

// [current stream is the default, pool stream differs, current inside a stream guard is the pool
//  stream, current after the guard is the default again, a kernel on the pool stream ran]
std::vector<int64_t> streams()
{
    at::cuda::CUDAStream before = at::cuda::getCurrentCUDAStream();
    at::cuda::CUDAStream pooled = at::cuda::getStreamFromPool();
    int64_t inside = 0;
    auto out = torch::zeros({4}, torch::dtype(torch::kInt));
    {
        c10::cuda::CUDAStreamGuard guard(pooled);
        inside = at::cuda::getCurrentCUDAStream() == pooled;
        fill<<<1, 4, 0, at::cuda::getCurrentCUDAStream()>>>(out.data_ptr<int>(), 3, 4);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
        pooled.synchronize();
    }
    const int64_t restored = at::cuda::getCurrentCUDAStream() == before;
    return {before.stream() == at::cuda::getDefaultCUDAStream().stream(), pooled.stream() != before.stream(), inside,
            restored, out.sum().item<int64_t>()};
}

// Guards over the tensor's device (a CPU tensor stands for MocCUDA's device 0), and over an
// index; CUDAGuard(index) on a device MocCUDA lacks throws.
std::vector<int64_t> guards(torch::Tensor x, int64_t index)
{
    std::vector<int64_t> seen;
    {
        const at::cuda::OptionalCUDAGuard guard(device_of(x));
        seen.push_back(guard.current_device().has_value() ? guard.current_device()->index() : -1);
        seen.push_back(c10::cuda::current_device());
    }
    {
        const c10::cuda::OptionalCUDAGuard none;
        seen.push_back(none.original_device().has_value());
    }
    const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(index));
    seen.push_back(guard.current_device().index());
    return seen;
}

std::vector<bool> device_checks(torch::Tensor x)
{
    return {x.is_cuda(), x.device().is_cuda(), x.device().type() == torch::kCUDA};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("accessor_row_sums", &accessor_row_sums);
    m.def("launch_checked", &launch_checked);
    m.def("at_cuda_check", &at_cuda_check);
    m.def("thc_cuda_check", &thc_cuda_check);
    m.def("thc_ceil_div", &thc_ceil_div);
    m.def("device_properties", &device_properties);
    m.def("device_name", &device_name);
    m.def("streams", &streams);
    m.def("guards", &guards);
    m.def("device_checks", &device_checks);
}
