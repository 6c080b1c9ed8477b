#include <torch/extension.h>
#include <hip/hip_runtime.h>
#include <cmath>

// Reductions within a wavefront by lane shuffles, then across wavefronts through shared memory.
__device__ float wave_sum(float v) {
    for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor(v, o);
    return v;
}

__device__ float wave_max(float v) {
    for (int o = warpSize / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o));
    return v;
}

__device__ float block_sum(float v, float* buf) {
    const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
    const int waves = (blockDim.x + warpSize - 1) / warpSize;
    v = wave_sum(v);
    if (lane == 0) buf[wave] = v;
    __syncthreads();
    v = (threadIdx.x < waves) ? buf[threadIdx.x] : 0.0f;
    if (wave == 0) v = wave_sum(v);
    if (threadIdx.x == 0) buf[0] = v;
    __syncthreads();
    float r = buf[0];
    __syncthreads();
    return r;
}

__device__ float block_max(float v, float* buf) {
    const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
    const int waves = (blockDim.x + warpSize - 1) / warpSize;
    v = wave_max(v);
    if (lane == 0) buf[wave] = v;
    __syncthreads();
    v = (threadIdx.x < waves) ? buf[threadIdx.x] : -INFINITY;
    if (wave == 0) v = wave_max(v);
    if (threadIdx.x == 0) buf[0] = v;
    __syncthreads();
    float r = buf[0];
    __syncthreads();
    return r;
}

// One block per row; each thread sums a strided slice, then the block reduces.
__global__ void sum_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
    extern __shared__ float buf[];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += xr[c];
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
