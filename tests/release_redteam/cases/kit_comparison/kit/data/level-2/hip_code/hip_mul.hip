// @HIP:base_hip_mul@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_base_hip_mul = 64;
constexpr int UNROLL_base_hip_mul = 2;

__global__ void kernel_base_hip_mul(const float* __restrict__ in_base_hip_mul, float* __restrict__ out_base_hip_mul, int count_base_hip_mul) {
    int base_base_hip_mul = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_base_hip_mul;
    #pragma unroll
    for (int step_base_hip_mul = 0; step_base_hip_mul < UNROLL_base_hip_mul; ++step_base_hip_mul) {
        int pos_base_hip_mul = base_base_hip_mul + step_base_hip_mul;
        if (pos_base_hip_mul < count_base_hip_mul) {
            float val_base_hip_mul = in_base_hip_mul[pos_base_hip_mul];
            out_base_hip_mul[pos_base_hip_mul] = logf(1.0f + expf(val_base_hip_mul));
        }
    }
}

torch::Tensor launch_base_hip_mul(torch::Tensor input_base_hip_mul) {
    auto result_base_hip_mul = torch::empty_like(input_base_hip_mul);
    int total_base_hip_mul = input_base_hip_mul.numel();
    int grid_base_hip_mul = (total_base_hip_mul + BLOCK_base_hip_mul * UNROLL_base_hip_mul - 1) / (BLOCK_base_hip_mul * UNROLL_base_hip_mul);
    hipLaunchKernelGGL(kernel_base_hip_mul, dim3(grid_base_hip_mul), dim3(BLOCK_base_hip_mul), 0, 0,
                       input_base_hip_mul.data_ptr<float>(), result_base_hip_mul.data_ptr<float>(), total_base_hip_mul);
    return result_base_hip_mul;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_base_hip_mul, "variant base_hip_mul");
}
