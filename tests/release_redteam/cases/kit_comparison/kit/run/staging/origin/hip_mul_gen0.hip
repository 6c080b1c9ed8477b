// @HIP:orig_hip_mul@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_orig_hip_mul = 64;
constexpr int UNROLL_orig_hip_mul = 4;

__global__ void kernel_orig_hip_mul(const float* __restrict__ in_orig_hip_mul, float* __restrict__ out_orig_hip_mul, int count_orig_hip_mul) {
    int base_orig_hip_mul = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_orig_hip_mul;
    #pragma unroll
    for (int step_orig_hip_mul = 0; step_orig_hip_mul < UNROLL_orig_hip_mul; ++step_orig_hip_mul) {
        int pos_orig_hip_mul = base_orig_hip_mul + step_orig_hip_mul;
        if (pos_orig_hip_mul < count_orig_hip_mul) {
            float val_orig_hip_mul = in_orig_hip_mul[pos_orig_hip_mul];
            out_orig_hip_mul[pos_orig_hip_mul] = sqrtf(fabsf(val_orig_hip_mul) + 1e-6f);
        }
    }
}

torch::Tensor launch_orig_hip_mul(torch::Tensor input_orig_hip_mul) {
    auto result_orig_hip_mul = torch::empty_like(input_orig_hip_mul);
    int total_orig_hip_mul = input_orig_hip_mul.numel();
    int grid_orig_hip_mul = (total_orig_hip_mul + BLOCK_orig_hip_mul * UNROLL_orig_hip_mul - 1) / (BLOCK_orig_hip_mul * UNROLL_orig_hip_mul);
    hipLaunchKernelGGL(kernel_orig_hip_mul, dim3(grid_orig_hip_mul), dim3(BLOCK_orig_hip_mul), 0, 0,
                       input_orig_hip_mul.data_ptr<float>(), result_orig_hip_mul.data_ptr<float>(), total_orig_hip_mul);
    return result_orig_hip_mul;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_orig_hip_mul, "variant orig_hip_mul");
}
