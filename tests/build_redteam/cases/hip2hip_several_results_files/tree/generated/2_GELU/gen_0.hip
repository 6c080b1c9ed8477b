#include <torch/extension.h>
#include <hip/hip_runtime.h>
#include <cstdint>

__device__ __forceinline__ float gelu_op(float v) {
    return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
}

__global__ void gelu_vec_kernel(const float* __restrict__ x, float* __restrict__ y,
                                int64_t n, int64_t n4) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t start = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int64_t i = start; i < n4; i += stride) {
        float4 q = x4[i];
        q.x = gelu_op(q.x);
        q.y = gelu_op(q.y);
        q.z = gelu_op(q.z);
        q.w = gelu_op(q.w);
        y4[i] = q;
    }
    for (int64_t i = n4 * 4 + start; i < n; i += stride) {
        y[i] = gelu_op(x[i]);
    }
}

static void check_input(const torch::Tensor& t, const char* name) {
    TORCH_CHECK(t.scalar_type() == torch::kFloat, name, " must be float32");
}

torch::Tensor forward(torch::Tensor x) {
    check_input(x, "x");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const float* xp = xc.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    const bool aligned = ((reinterpret_cast<std::uintptr_t>(xp) | reinterpret_cast<std::uintptr_t>(yp)) % 16) == 0;
    const int64_t n4 = aligned ? n / 4 : 0;
    const int threads = 256;
    const int64_t work = n4 > 0 ? n4 : n;
    const int blocks = (int)std::min<int64_t>((work + threads - 1) / threads, 4096);
    hipLaunchKernelGGL(gelu_vec_kernel, dim3(blocks), dim3(threads), 0, 0, xp, yp, n, n4);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &forward, "gelu (float4 grid-stride)");
}
