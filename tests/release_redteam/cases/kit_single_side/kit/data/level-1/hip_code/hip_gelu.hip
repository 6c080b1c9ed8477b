// @HIP:base_hip_gelu@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_base_hip_gelu = 128;
constexpr int UNROLL_base_hip_gelu = 1;

__global__ void kernel_base_hip_gelu(const float* __restrict__ in_base_hip_gelu, float* __restrict__ out_base_hip_gelu, int count_base_hip_gelu) {
    int base_base_hip_gelu = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_base_hip_gelu;
    #pragma unroll
    for (int step_base_hip_gelu = 0; step_base_hip_gelu < UNROLL_base_hip_gelu; ++step_base_hip_gelu) {
        int pos_base_hip_gelu = base_base_hip_gelu + step_base_hip_gelu;
        if (pos_base_hip_gelu < count_base_hip_gelu) {
            float val_base_hip_gelu = in_base_hip_gelu[pos_base_hip_gelu];
            out_base_hip_gelu[pos_base_hip_gelu] = sqrtf(fabsf(val_base_hip_gelu) + 1e-6f);
        }
    }
}

torch::Tensor launch_base_hip_gelu(torch::Tensor input_base_hip_gelu) {
    auto result_base_hip_gelu = torch::empty_like(input_base_hip_gelu);
    int total_base_hip_gelu = input_base_hip_gelu.numel();
    int grid_base_hip_gelu = (total_base_hip_gelu + BLOCK_base_hip_gelu * UNROLL_base_hip_gelu - 1) / (BLOCK_base_hip_gelu * UNROLL_base_hip_gelu);
    hipLaunchKernelGGL(kernel_base_hip_gelu, dim3(grid_base_hip_gelu), dim3(BLOCK_base_hip_gelu), 0, 0,
                       input_base_hip_gelu.data_ptr<float>(), result_base_hip_gelu.data_ptr<float>(), total_base_hip_gelu);
    return result_base_hip_gelu;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_base_hip_gelu, "variant base_hip_gelu");
}
