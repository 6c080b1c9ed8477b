// @HIP:opt_hip_mul@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_opt_hip_mul = 256;
constexpr int UNROLL_opt_hip_mul = 3;

__global__ void kernel_opt_hip_mul(const float* __restrict__ in_opt_hip_mul, float* __restrict__ out_opt_hip_mul, int count_opt_hip_mul) {
    int base_opt_hip_mul = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_opt_hip_mul;
    #pragma unroll
    for (int step_opt_hip_mul = 0; step_opt_hip_mul < UNROLL_opt_hip_mul; ++step_opt_hip_mul) {
        int pos_opt_hip_mul = base_opt_hip_mul + step_opt_hip_mul;
        if (pos_opt_hip_mul < count_opt_hip_mul) {
            float val_opt_hip_mul = in_opt_hip_mul[pos_opt_hip_mul];
            out_opt_hip_mul[pos_opt_hip_mul] = sqrtf(fabsf(val_opt_hip_mul) + 1e-6f);
        }
    }
}

torch::Tensor launch_opt_hip_mul(torch::Tensor input_opt_hip_mul) {
    auto result_opt_hip_mul = torch::empty_like(input_opt_hip_mul);
    int total_opt_hip_mul = input_opt_hip_mul.numel();
    int grid_opt_hip_mul = (total_opt_hip_mul + BLOCK_opt_hip_mul * UNROLL_opt_hip_mul - 1) / (BLOCK_opt_hip_mul * UNROLL_opt_hip_mul);
    hipLaunchKernelGGL(kernel_opt_hip_mul, dim3(grid_opt_hip_mul), dim3(BLOCK_opt_hip_mul), 0, 0,
                       input_opt_hip_mul.data_ptr<float>(), result_opt_hip_mul.data_ptr<float>(), total_opt_hip_mul);
    return result_opt_hip_mul;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_opt_hip_mul, "variant opt_hip_mul");
}
