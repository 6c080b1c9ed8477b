// @HIP:301_3@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_301_3 = 64;
constexpr int UNROLL_301_3 = 3;

__global__ void kernel_301_3(const float* __restrict__ in_301_3, float* __restrict__ out_301_3, int count_301_3) {
    int base_301_3 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_301_3;
    #pragma unroll
    for (int step_301_3 = 0; step_301_3 < UNROLL_301_3; ++step_301_3) {
        int pos_301_3 = base_301_3 + step_301_3;
        if (pos_301_3 < count_301_3) {
            float val_301_3 = in_301_3[pos_301_3];
            out_301_3[pos_301_3] = 1.0f / (1.0f + expf(-val_301_3));
        }
    }
}

torch::Tensor launch_301_3(torch::Tensor input_301_3) {
    auto result_301_3 = torch::empty_like(input_301_3);
    int total_301_3 = input_301_3.numel();
    int grid_301_3 = (total_301_3 + BLOCK_301_3 * UNROLL_301_3 - 1) / (BLOCK_301_3 * UNROLL_301_3);
    hipLaunchKernelGGL(kernel_301_3, dim3(grid_301_3), dim3(BLOCK_301_3), 0, 0,
                       input_301_3.data_ptr<float>(), result_301_3.data_ptr<float>(), total_301_3);
    return result_301_3;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_301_3, "variant 301_3");
}
