// @HIP:relu0@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_relu0 = 128;
constexpr int UNROLL_relu0 = 1;

__global__ void kernel_relu0(const float* __restrict__ in_relu0, float* __restrict__ out_relu0, int count_relu0) {
    int base_relu0 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_relu0;
    #pragma unroll
    for (int step_relu0 = 0; step_relu0 < UNROLL_relu0; ++step_relu0) {
        int pos_relu0 = base_relu0 + step_relu0;
        if (pos_relu0 < count_relu0) {
            float val_relu0 = in_relu0[pos_relu0];
            out_relu0[pos_relu0] = tanhf(val_relu0) + 0.25f;
        }
    }
}

torch::Tensor launch_relu0(torch::Tensor input_relu0) {
    auto result_relu0 = torch::empty_like(input_relu0);
    int total_relu0 = input_relu0.numel();
    int grid_relu0 = (total_relu0 + BLOCK_relu0 * UNROLL_relu0 - 1) / (BLOCK_relu0 * UNROLL_relu0);
    hipLaunchKernelGGL(kernel_relu0, dim3(grid_relu0), dim3(BLOCK_relu0), 0, 0,
                       input_relu0.data_ptr<float>(), result_relu0.data_ptr<float>(), total_relu0);
    return result_relu0;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_relu0, "variant relu0");
}
