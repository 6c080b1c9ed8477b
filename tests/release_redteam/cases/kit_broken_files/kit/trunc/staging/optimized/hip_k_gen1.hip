// @HIP:trunc_k1@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_trunc_k1 = 256;
constexpr int UNROLL_trunc_k1 = 4;

__global__ void kernel_trunc_k1(const float* __restrict__ in_trunc_k1, float* __restrict__ out_trunc_k1, int count_trunc_k1) {
    int base_trunc_k1 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_trunc_k1;
    #pragma unroll
    for (int step_trunc_k1 = 0; step_trunc_k1 < UNROLL_trunc_k1; ++step_trunc_k1) {
        int pos_trunc_k1 = base_trunc_k1 + step_trunc_k1;
        if (pos_trunc_k1 < count_trunc_k1) {
            float val_trunc_k1 = in_trunc_k1[pos_trunc_k1];
            out_trunc_k1[pos_trunc_k1] = val_trunc_k1 * val_trunc_k1 * 0.5f;
        }
    }
}

torch::Tensor launch_trunc_k1(torch::Tensor input_trunc_k1) {
    auto result_trunc_k1 = torch::empty_like(input_trunc_k1);
    int total_trunc_k1 = input_trunc_k1.numel();
    int grid_trunc_k1 = (total_trunc_k1 + BLOCK_trunc_k1 * UNROLL_trunc_k1 - 1) / (BLOCK_trunc_k1 * UNROLL_trunc_k1);
    hipLaunchKernelGGL(kernel_trunc_k1, dim3(grid_trunc_k1), dim3(BLOCK_trunc_k1), 0, 0,
                       input_trunc_k1.data_ptr<float>(), result_trunc_k1.data_ptr<float>(), total_trunc_k1);
    return result_trunc_k1;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_trunc_k1, "variant trunc_k1");
}
