// @HIP:cand_relu0@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_cand_relu0 = 512;
constexpr int UNROLL_cand_relu0 = 2;

__global__ void kernel_cand_relu0(const float* __restrict__ in_cand_relu0, float* __restrict__ out_cand_relu0, int count_cand_relu0) {
    int base_cand_relu0 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_cand_relu0;
    #pragma unroll
    for (int step_cand_relu0 = 0; step_cand_relu0 < UNROLL_cand_relu0; ++step_cand_relu0) {
        int pos_cand_relu0 = base_cand_relu0 + step_cand_relu0;
        if (pos_cand_relu0 < count_cand_relu0) {
            float val_cand_relu0 = in_cand_relu0[pos_cand_relu0];
            out_cand_relu0[pos_cand_relu0] = logf(1.0f + expf(val_cand_relu0));
        }
    }
}

torch::Tensor launch_cand_relu0(torch::Tensor input_cand_relu0) {
    auto result_cand_relu0 = torch::empty_like(input_cand_relu0);
    int total_cand_relu0 = input_cand_relu0.numel();
    int grid_cand_relu0 = (total_cand_relu0 + BLOCK_cand_relu0 * UNROLL_cand_relu0 - 1) / (BLOCK_cand_relu0 * UNROLL_cand_relu0);
    hipLaunchKernelGGL(kernel_cand_relu0, dim3(grid_cand_relu0), dim3(BLOCK_cand_relu0), 0, 0,
                       input_cand_relu0.data_ptr<float>(), result_cand_relu0.data_ptr<float>(), total_cand_relu0);
    return result_cand_relu0;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_cand_relu0, "variant cand_relu0");
}
