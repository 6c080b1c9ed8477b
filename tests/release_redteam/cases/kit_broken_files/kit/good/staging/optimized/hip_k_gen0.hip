// @HIP:good_k0@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_good_k0 = 128;
constexpr int UNROLL_good_k0 = 4;

__global__ void kernel_good_k0(const float* __restrict__ in_good_k0, float* __restrict__ out_good_k0, int count_good_k0) {
    int base_good_k0 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_good_k0;
    #pragma unroll
    for (int step_good_k0 = 0; step_good_k0 < UNROLL_good_k0; ++step_good_k0) {
        int pos_good_k0 = base_good_k0 + step_good_k0;
        if (pos_good_k0 < count_good_k0) {
            float val_good_k0 = in_good_k0[pos_good_k0];
            out_good_k0[pos_good_k0] = val_good_k0 * val_good_k0 * 0.5f;
        }
    }
}

torch::Tensor launch_good_k0(torch::Tensor input_good_k0) {
    auto result_good_k0 = torch::empty_like(input_good_k0);
    int total_good_k0 = input_good_k0.numel();
    int grid_good_k0 = (total_good_k0 + BLOCK_good_k0 * UNROLL_good_k0 - 1) / (BLOCK_good_k0 * UNROLL_good_k0);
    hipLaunchKernelGGL(kernel_good_k0, dim3(grid_good_k0), dim3(BLOCK_good_k0), 0, 0,
                       input_good_k0.data_ptr<float>(), result_good_k0.data_ptr<float>(), total_good_k0);
    return result_good_k0;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_good_k0, "variant good_k0");
}
