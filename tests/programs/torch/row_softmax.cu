// A row softmax, one block per row, launched from AT_DISPATCH_FLOATING_TYPES's lambda (so the
// launch's tokens come from a macro argument).  The block reduces a max into red[], every thread
// reads red[0], and red[] is then reused for the sum: the barrier after `rmax = red[0]` orders
// thread 0's read against the other threads' writes and must stay.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#define BLOCK 64

template <typename scalar_t>
__global__ void row_softmax(const scalar_t *x, scalar_t *y, int cols)
{
    __shared__ float red[BLOCK];
    const scalar_t *row = x + (long)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        m = fmaxf(m, (float)row[c]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    const float rmax = red[0];
    __syncthreads();
    float sum = 0.f;
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        sum += expf((float)row[c] - rmax);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    const float total = red[0];
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        y[(long)blockIdx.x * cols + c] = (scalar_t)(expf((float)row[c] - rmax) / total);
}

torch::Tensor softmax(torch::Tensor x)
{
    TORCH_CHECK(x.dim() == 2 && x.is_contiguous(), "a contiguous matrix");
    auto y = torch::empty_like(x);
    const int rows = x.size(0), cols = x.size(1);
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "row_softmax", [&] {
        row_softmax<scalar_t><<<rows, BLOCK, 0, at::cuda::getCurrentCUDAStream()>>>(
            x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), cols);
    });
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("softmax", &softmax, "row softmax");
}
