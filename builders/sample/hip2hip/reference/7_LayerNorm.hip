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

// One block per row: mean, then biased variance, then the affine normalisation.
__global__ void layernorm_rows(const float* __restrict__ x, const float* __restrict__ w,
                               const float* __restrict__ b, float* __restrict__ y, int cols, float eps) {
    extern __shared__ float buf[];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
    const float mean = block_sum(s, buf) / cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float d = xr[c] - mean;
        q += d * d;
    }
    const float rstd = rsqrtf(block_sum(q, buf) / cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = (xr[c] - mean) * rstd * w[c] + b[c];
}

static void check_input(const torch::Tensor& t, const char* name) {
    TORCH_CHECK(t.scalar_type() == torch::kFloat, name, " must be float32");
}

torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps) {
    check_input(x, "x");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    check_input(weight, "weight");
    check_input(bias, "bias");
    TORCH_CHECK(weight.numel() == x.size(1) && bias.numel() == x.size(1), "weight/bias size");
    auto xc = x.contiguous();
    const int rows = (int)xc.size(0), cols = (int)xc.size(1);
    auto y = torch::empty_like(xc);
    if (rows == 0) return y;
    const int threads = 256;
    hipLaunchKernelGGL(layernorm_rows, dim3(rows), dim3(threads), threads * sizeof(float), 0,
                       xc.data_ptr<float>(), weight.contiguous().data_ptr<float>(),
                       bias.contiguous().data_ptr<float>(), y.data_ptr<float>(), cols, (float)eps);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &forward, "layer norm over the last dimension");
}
