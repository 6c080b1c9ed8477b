// @HIP:base_hip_k@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_base_hip_k = 128;
constexpr int UNROLL_base_hip_k = 4;

__global__ void kernel_base_hip_k(const float* __restrict__ in_base_hip_k, float* __restrict__ out_base_hip_k, int count_base_hip_k) {
    int base_base_hip_k = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_base_hip_k;
    #pragma unroll
    for (int step_base_hip_k = 0; step_base_hip_k < UNROLL_base_hip_k; ++step_base_hip_k) {
        int pos_base_hip_k = base_base_hip_k + step_base_hip_k;
        if (pos_base_hip_k < count_base_hip_k) {
            float val_base_hip_k = in_base_hip_k[pos_base_hip_k];
            out_base_hip_k[pos_base_hip_k] = (val_base_hip_k > 0.0f ? val_base_hip_k : 0.01f * val_base_hip_k);
        }
    }
}

torch::Tensor launch_base_hip_k(torch::Tensor input_base_hip_k) {
    auto result_base_hip_k = torch::empty_like(input_base_hip_k);
    int total_base_hip_k = input_base_hip_k.numel();
    int grid_base_hip_k = (total_base_hip_k + BLOCK_base_hip_k * UNROLL_base_hip_k - 1) / (BLOCK_base_hip_k * UNROLL_base_hip_k);
    hipLaunchKernelGGL(kernel_base_hip_k, dim3(grid_base_hip_k), dim3(BLOCK_base_hip_k), 0, 0,
                       input_base_hip_k.data_ptr<float>(), result_base_hip_k.data_ptr<float>(), total_base_hip_k);
    return result_base_hip_k;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_base_hip_k, "variant base_hip_k");
}
