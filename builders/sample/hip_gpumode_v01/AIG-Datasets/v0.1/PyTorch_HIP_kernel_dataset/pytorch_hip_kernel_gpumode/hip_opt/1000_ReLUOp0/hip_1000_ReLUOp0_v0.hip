#include <hip/hip_runtime.h>
#include <torch/extension.h>

__device__ __forceinline__ float clamp_0_0(float a, float lo, float hi) { return fminf(fmaxf(a, lo), hi); }

__global__ void op_kernel_0_0(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = fmaxf(v, 0.0f); }
}

torch::Tensor forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    int blocks = (n + 128 - 1) / 128;
    hipLaunchKernelGGL(op_kernel_0_0, dim3(blocks), dim3(128), 0, 0, x.data_ptr<float>(),
                       y.data_ptr<float>(), n);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "sample 0 variant 0"); }
