// @HIP:base_hip_relu@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_base_hip_relu = 512;
constexpr int UNROLL_base_hip_relu = 4;

__global__ void kernel_base_hip_relu(const float* __restrict__ in_base_hip_relu, float* __restrict__ out_base_hip_relu, int count_base_hip_relu) {
    int base_base_hip_relu = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_base_hip_relu;
    #pragma unroll
    for (int step_base_hip_relu = 0; step_base_hip_relu < UNROLL_base_hip_relu; ++step_base_hip_relu) {
        int pos_base_hip_relu = base_base_hip_relu + step_base_hip_relu;
        if (pos_base_hip_relu < count_base_hip_relu) {
            float val_base_hip_relu = in_base_hip_relu[pos_base_hip_relu];
            out_base_hip_relu[pos_base_hip_relu] = fmaxf(val_base_hip_relu, 0.0f);
        }
    }
}

torch::Tensor launch_base_hip_relu(torch::Tensor input_base_hip_relu) {
    auto result_base_hip_relu = torch::empty_like(input_base_hip_relu);
    int total_base_hip_relu = input_base_hip_relu.numel();
    int grid_base_hip_relu = (total_base_hip_relu + BLOCK_base_hip_relu * UNROLL_base_hip_relu - 1) / (BLOCK_base_hip_relu * UNROLL_base_hip_relu);
    hipLaunchKernelGGL(kernel_base_hip_relu, dim3(grid_base_hip_relu), dim3(BLOCK_base_hip_relu), 0, 0,
                       input_base_hip_relu.data_ptr<float>(), result_base_hip_relu.data_ptr<float>(), total_base_hip_relu);
    return result_base_hip_relu;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_base_hip_relu, "variant base_hip_relu");
}
