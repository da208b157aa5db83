// Negative log-likelihood loss as a PyTorch CUDA extension, written the way CUDA extensions are
// (torch/extension.h, AT_DISPATCH, packed accessors, the current stream, CHECK_CUDA), to run on
// the CPU through cuda2cpu and MocCUDA (moccuda.torch.load).
//
// The forward pass follows PyTorch's ClassNLLCriterion: each block reduces its samples' weighted
// losses and weights in shared memory with __syncthreads(), one partial per block; a one-block
// kernel then reduces the partials and applies the reduction.  The backward kernel scatters
// -weight[target] * grad (divided by the total weight for "mean") into a zeroed gradient.
#include <torch/extension.h>
#include <ATen/AccumulateType.h>
#include <ATen/ceil_div.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.device().is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) CHECK_CUDA(x); CHECK_CONTIGUOUS(x)

constexpr int NLL_THREADS = 128;  // a power of two: the tree reduction halves it
enum Reduction { kNone = 0, kMean = 1, kSum = 2 };

// One partial (sum of -w[t] * x[i][t], sum of w[t]) per block, over the samples i of the block.
template <typename scalar_t, typename acc_t>
__global__ void nll_forward_partials(const torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> input,
                                     const int64_t *__restrict__ target, const scalar_t *__restrict__ weight,
                                     acc_t *__restrict__ partial_loss, acc_t *__restrict__ partial_weight,
                                     int64_t ignore_index)
{
    __shared__ acc_t loss_sh[NLL_THREADS];
    __shared__ acc_t weight_sh[NLL_THREADS];
    const int n = input.size(0);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    acc_t loss = 0, w = 0;
    if (i < n) {
        const int64_t t = target[i];
        if (t != ignore_index) {
            w = static_cast<acc_t>(weight[t]);
            loss = -static_cast<acc_t>(input[i][t]) * w;
        }
    }
    loss_sh[threadIdx.x] = loss;
    weight_sh[threadIdx.x] = w;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            loss_sh[threadIdx.x] += loss_sh[threadIdx.x + stride];
            weight_sh[threadIdx.x] += weight_sh[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial_loss[blockIdx.x] = loss_sh[0];
        partial_weight[blockIdx.x] = weight_sh[0];
    }
}

// One block: adds the partials (each thread a strided share, then a tree) and writes the loss
// and the total weight; "mean" divides by the total weight, as PyTorch does.
template <typename scalar_t, typename acc_t>
__global__ void nll_forward_finish(const acc_t *__restrict__ partial_loss, const acc_t *__restrict__ partial_weight,
                                   int partials, scalar_t *__restrict__ output, scalar_t *__restrict__ total_weight,
                                   int reduction)
{
    __shared__ acc_t loss_sh[NLL_THREADS];
    __shared__ acc_t weight_sh[NLL_THREADS];
    acc_t loss = 0, w = 0;
    for (int p = threadIdx.x; p < partials; p += blockDim.x) {
        loss += partial_loss[p];
        w += partial_weight[p];
    }
    loss_sh[threadIdx.x] = loss;
    weight_sh[threadIdx.x] = w;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            loss_sh[threadIdx.x] += loss_sh[threadIdx.x + stride];
            weight_sh[threadIdx.x] += weight_sh[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        acc_t total = weight_sh[0];
        output[0] = static_cast<scalar_t>(reduction == kMean ? loss_sh[0] / total : loss_sh[0]);
        total_weight[0] = static_cast<scalar_t>(total);
    }
}

// reduction "none": one loss per sample.
template <typename scalar_t>
__global__ void nll_forward_none(const torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> input,
                                 const int64_t *__restrict__ target, const scalar_t *__restrict__ weight,
                                 scalar_t *__restrict__ output, int64_t ignore_index)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= input.size(0))
        return;
    const int64_t t = target[i];
    output[i] = t == ignore_index ? scalar_t(0) : -weight[t] * input[i][t];
}

// d loss / d input[i][target[i]] = -weight[target[i]] * grad (grad per sample for "none", the
// scalar grad otherwise, divided by the total weight for "mean"); every other entry is zero.
template <typename scalar_t>
__global__ void nll_backward(torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> grad_input,
                             const int64_t *__restrict__ target, const scalar_t *__restrict__ weight,
                             const scalar_t *__restrict__ grad_output, const scalar_t *__restrict__ total_weight,
                             int reduction, int64_t ignore_index)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= grad_input.size(0))
        return;
    const int64_t t = target[i];
    if (t == ignore_index)
        return;
    scalar_t g = reduction == kNone ? grad_output[i] : grad_output[0];
    if (reduction == kMean)
        g /= total_weight[0];
    grad_input[i][t] = -weight[t] * g;
}

static void check_arguments(const torch::Tensor &input, const torch::Tensor &target, const torch::Tensor &weight)
{
    CHECK_INPUT(input);
    CHECK_INPUT(target);
    CHECK_INPUT(weight);
    TORCH_CHECK(input.dim() == 2, "input must be (N, C)");
    TORCH_CHECK(target.dim() == 1 && target.size(0) == input.size(0), "target must be (N)");
    TORCH_CHECK(target.scalar_type() == torch::kLong, "target must be int64");
    TORCH_CHECK(weight.numel() == input.size(1), "weight must have C entries");
}

// Returns (output, total_weight): output is a scalar for "mean"/"sum", (N) for "none".
std::vector<torch::Tensor> nll_forward(torch::Tensor input, torch::Tensor target, torch::Tensor weight,
                                       int64_t reduction, int64_t ignore_index)
{
    check_arguments(input, target, weight);
    const at::cuda::OptionalCUDAGuard device_guard(device_of(input));
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const int n = input.size(0);
    const int blocks = at::ceil_div(n, NLL_THREADS);
    torch::Tensor total_weight = torch::zeros({}, input.options());
    torch::Tensor output;
    if (reduction == kNone) {
        output = torch::empty({n}, input.options());
        AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "nll_forward_none", ([&] {
            nll_forward_none<scalar_t><<<blocks, NLL_THREADS, 0, stream>>>(
                input.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(), target.data_ptr<int64_t>(),
                weight.data_ptr<scalar_t>(), output.data_ptr<scalar_t>(), ignore_index);
            C10_CUDA_KERNEL_LAUNCH_CHECK();
        }));
        return {output, total_weight};
    }
    output = torch::empty({}, input.options());
    AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "nll_forward", ([&] {
        using acc_t = at::acc_type<scalar_t, true>;
        auto acc_options = input.options().dtype(c10::CppTypeToScalarType<acc_t>::value);
        torch::Tensor partial_loss = torch::empty({std::max(blocks, 1)}, acc_options);
        torch::Tensor partial_weight = torch::empty({std::max(blocks, 1)}, acc_options);
        nll_forward_partials<scalar_t, acc_t><<<blocks, NLL_THREADS, 0, stream>>>(
            input.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(), target.data_ptr<int64_t>(),
            weight.data_ptr<scalar_t>(), partial_loss.data_ptr<acc_t>(), partial_weight.data_ptr<acc_t>(),
            ignore_index);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
        nll_forward_finish<scalar_t, acc_t><<<1, NLL_THREADS, 0, stream>>>(
            partial_loss.data_ptr<acc_t>(), partial_weight.data_ptr<acc_t>(), blocks, output.data_ptr<scalar_t>(),
            total_weight.data_ptr<scalar_t>(), static_cast<int>(reduction));
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }));
    return {output, total_weight};
}

torch::Tensor nll_backward_grad(torch::Tensor grad_output, torch::Tensor input, torch::Tensor target,
                                torch::Tensor weight, torch::Tensor total_weight, int64_t reduction,
                                int64_t ignore_index)
{
    check_arguments(input, target, weight);
    CHECK_CUDA(grad_output);
    grad_output = grad_output.contiguous();
    const at::cuda::OptionalCUDAGuard device_guard(device_of(input));
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const int n = input.size(0);
    torch::Tensor grad_input = torch::zeros_like(input);
    AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "nll_backward", ([&] {
        nll_backward<scalar_t><<<at::ceil_div(n, NLL_THREADS), NLL_THREADS, 0, stream>>>(
            grad_input.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(), target.data_ptr<int64_t>(),
            weight.data_ptr<scalar_t>(), grad_output.data_ptr<scalar_t>(), total_weight.data_ptr<scalar_t>(),
            static_cast<int>(reduction), ignore_index);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }));
    return grad_input;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &nll_forward, "NLL loss forward: (output, total_weight)");
    m.def("backward", &nll_backward_grad, "NLL loss backward: grad_input");
}
