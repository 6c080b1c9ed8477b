// @HIP:cand_gelu1@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_cand_gelu1 = 128;
constexpr int UNROLL_cand_gelu1 = 2;

__global__ void kernel_cand_gelu1(const float* __restrict__ in_cand_gelu1, float* __restrict__ out_cand_gelu1, int count_cand_gelu1) {
    int base_cand_gelu1 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_cand_gelu1;
    #pragma unroll
    for (int step_cand_gelu1 = 0; step_cand_gelu1 < UNROLL_cand_gelu1; ++step_cand_gelu1) {
        int pos_cand_gelu1 = base_cand_gelu1 + step_cand_gelu1;
        if (pos_cand_gelu1 < count_cand_gelu1) {
            float val_cand_gelu1 = in_cand_gelu1[pos_cand_gelu1];
            out_cand_gelu1[pos_cand_gelu1] = 1.0f / (1.0f + expf(-val_cand_gelu1));
        }
    }
}

torch::Tensor launch_cand_gelu1(torch::Tensor input_cand_gelu1) {
    auto result_cand_gelu1 = torch::empty_like(input_cand_gelu1);
    int total_cand_gelu1 = input_cand_gelu1.numel();
    int grid_cand_gelu1 = (total_cand_gelu1 + BLOCK_cand_gelu1 * UNROLL_cand_gelu1 - 1) / (BLOCK_cand_gelu1 * UNROLL_cand_gelu1);
    hipLaunchKernelGGL(kernel_cand_gelu1, dim3(grid_cand_gelu1), dim3(BLOCK_cand_gelu1), 0, 0,
                       input_cand_gelu1.data_ptr<float>(), result_cand_gelu1.data_ptr<float>(), total_cand_gelu1);
    return result_cand_gelu1;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_cand_gelu1, "variant cand_gelu1");
}
