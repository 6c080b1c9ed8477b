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

// One block per row; each thread sums a strided slice, then the block reduces.
__global__ void sum_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
    extern __shared__ float buf[];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float acc = 0.0f;
    for (int c = threadIdx.x + (threadIdx.x == 0 ? 1 : 0); c < cols; c += blockDim.x) acc += xr[c];
    acc = block_sum(acc, buf);
    if (threadIdx.x == 0) y[blockIdx.x] = acc;
}

static void check_input(const torch::Tensor& t, const char* name) {
    TORCH_CHECK(t.scalar_type() == torch::kFloat, name, " must be float32");
}

torch::Tensor forward(torch::Tensor x) {
    check_input(x, "x");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    auto xc = x.contiguous();
    const int rows = (int)xc.size(0), cols = (int)xc.size(1);
    auto y = torch::empty({rows}, xc.options());
    if (rows == 0) return y;
    const int threads = 256;
    hipLaunchKernelGGL(sum_rows, dim3(rows), dim3(threads), threads * sizeof(float), 0,
                       xc.data_ptr<float>(), y.data_ptr<float>(), cols);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &forward, "sum over dim 1");
}
