// @HIP:relu1@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_relu1 = 64;
constexpr int UNROLL_relu1 = 1;

__global__ void kernel_relu1(const float* __restrict__ in_relu1, float* __restrict__ out_relu1, int count_relu1) {
    int base_relu1 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_relu1;
    #pragma unroll
    for (int step_relu1 = 0; step_relu1 < UNROLL_relu1; ++step_relu1) {
        int pos_relu1 = base_relu1 + step_relu1;
        if (pos_relu1 < count_relu1) {
            float val_relu1 = in_relu1[pos_relu1];
            out_relu1[pos_relu1] = logf(1.0f + expf(val_relu1));
        }
    }
}

torch::Tensor launch_relu1(torch::Tensor input_relu1) {
    auto result_relu1 = torch::empty_like(input_relu1);
    int total_relu1 = input_relu1.numel();
    int grid_relu1 = (total_relu1 + BLOCK_relu1 * UNROLL_relu1 - 1) / (BLOCK_relu1 * UNROLL_relu1);
    hipLaunchKernelGGL(kernel_relu1, dim3(grid_relu1), dim3(BLOCK_relu1), 0, 0,
                       input_relu1.data_ptr<float>(), result_relu1.data_ptr<float>(), total_relu1);
    return result_relu1;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_relu1, "variant relu1");
}
