// @HIP:301_2@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_301_2 = 128;
constexpr int UNROLL_301_2 = 3;

__global__ void kernel_301_2(const float* __restrict__ in_301_2, float* __restrict__ out_301_2, int count_301_2) {
    int base_301_2 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_301_2;
    #pragma unroll
    for (int step_301_2 = 0; step_301_2 < UNROLL_301_2; ++step_301_2) {
        int pos_301_2 = base_301_2 + step_301_2;
        if (pos_301_2 < count_301_2) {
            float val_301_2 = in_301_2[pos_301_2];
            out_301_2[pos_301_2] = sinf(val_301_2) * cosf(val_301_2);
        }
    }
}

torch::Tensor launch_301_2(torch::Tensor input_301_2) {
    auto result_301_2 = torch::empty_like(input_301_2);
    int total_301_2 = input_301_2.numel();
    int grid_301_2 = (total_301_2 + BLOCK_301_2 * UNROLL_301_2 - 1) / (BLOCK_301_2 * UNROLL_301_2);
    hipLaunchKernelGGL(kernel_301_2, dim3(grid_301_2), dim3(BLOCK_301_2), 0, 0,
                       input_301_2.data_ptr<float>(), result_301_2.data_ptr<float>(), total_301_2);
    return result_301_2;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_301_2, "variant 301_2");
}
