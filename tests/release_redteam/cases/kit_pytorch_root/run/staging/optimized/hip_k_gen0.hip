// @HIP:cand_k0@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_cand_k0 = 64;
constexpr int UNROLL_cand_k0 = 4;

__global__ void kernel_cand_k0(const float* __restrict__ in_cand_k0, float* __restrict__ out_cand_k0, int count_cand_k0) {
    int base_cand_k0 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_cand_k0;
    #pragma unroll
    for (int step_cand_k0 = 0; step_cand_k0 < UNROLL_cand_k0; ++step_cand_k0) {
        int pos_cand_k0 = base_cand_k0 + step_cand_k0;
        if (pos_cand_k0 < count_cand_k0) {
            float val_cand_k0 = in_cand_k0[pos_cand_k0];
            out_cand_k0[pos_cand_k0] = fmaxf(val_cand_k0, 0.0f);
        }
    }
}

torch::Tensor launch_cand_k0(torch::Tensor input_cand_k0) {
    auto result_cand_k0 = torch::empty_like(input_cand_k0);
    int total_cand_k0 = input_cand_k0.numel();
    int grid_cand_k0 = (total_cand_k0 + BLOCK_cand_k0 * UNROLL_cand_k0 - 1) / (BLOCK_cand_k0 * UNROLL_cand_k0);
    hipLaunchKernelGGL(kernel_cand_k0, dim3(grid_cand_k0), dim3(BLOCK_cand_k0), 0, 0,
                       input_cand_k0.data_ptr<float>(), result_cand_k0.data_ptr<float>(), total_cand_k0);
    return result_cand_k0;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_cand_k0, "variant cand_k0");
}
