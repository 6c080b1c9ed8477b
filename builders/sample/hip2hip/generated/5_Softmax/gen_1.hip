#include <torch/extension.h>
#include <hip/hip_runtime.h>
#include <cmath>

// Tree reductions over a block of THREADS (a power of two) threads through shared memory.
__device__ float block_sum(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();
    return r;
}

__device__ float block_max(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();
    return r;
}

// One block per row: max, then sum of exp(x - max), then normalise.
__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
    extern __shared__ float buf[];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = block_max(m, buf);
    float partial = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) partial += expf(xr[c] - m);
    const float total = partial;
    const float inv = 1.0f / total;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}

static void check_input(const torch::Tensor& t, const char* name) {
    TORCH_CHECK(t.scalar_type() == torch::kFloat, name, " must be float32");
}

torch::Tensor forward(torch::Tensor x) {
    check_input(x, "x");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    auto xc = x.contiguous();
    const int rows = (int)xc.size(0), cols = (int)xc.size(1);
    auto y = torch::empty_like(xc);
    if (rows == 0) return y;
    const int threads = 256;
    hipLaunchKernelGGL(softmax_rows, dim3(rows), dim3(threads), threads * sizeof(float), 0,
                       xc.data_ptr<float>(), y.data_ptr<float>(), cols);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &forward, "row softmax");
}
