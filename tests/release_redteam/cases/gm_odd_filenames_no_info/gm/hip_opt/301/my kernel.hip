// @HIP:301_0@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_301_0 = 512;
constexpr int UNROLL_301_0 = 4;

__global__ void kernel_301_0(const float* __restrict__ in_301_0, float* __restrict__ out_301_0, int count_301_0) {
    int base_301_0 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_301_0;
    #pragma unroll
    for (int step_301_0 = 0; step_301_0 < UNROLL_301_0; ++step_301_0) {
        int pos_301_0 = base_301_0 + step_301_0;
        if (pos_301_0 < count_301_0) {
            float val_301_0 = in_301_0[pos_301_0];
            out_301_0[pos_301_0] = fmaxf(val_301_0, 0.0f);
        }
    }
}

torch::Tensor launch_301_0(torch::Tensor input_301_0) {
    auto result_301_0 = torch::empty_like(input_301_0);
    int total_301_0 = input_301_0.numel();
    int grid_301_0 = (total_301_0 + BLOCK_301_0 * UNROLL_301_0 - 1) / (BLOCK_301_0 * UNROLL_301_0);
    hipLaunchKernelGGL(kernel_301_0, dim3(grid_301_0), dim3(BLOCK_301_0), 0, 0,
                       input_301_0.data_ptr<float>(), result_301_0.data_ptr<float>(), total_301_0);
    return result_301_0;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_301_0, "variant 301_0");
}
