// @HIP:id1@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_id1 = 256;
constexpr int UNROLL_id1 = 4;

__global__ void kernel_id1(const float* __restrict__ in_id1, float* __restrict__ out_id1, int count_id1) {
    int base_id1 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_id1;
    #pragma unroll
    for (int step_id1 = 0; step_id1 < UNROLL_id1; ++step_id1) {
        int pos_id1 = base_id1 + step_id1;
        if (pos_id1 < count_id1) {
            float val_id1 = in_id1[pos_id1];
            out_id1[pos_id1] = sinf(val_id1) * cosf(val_id1);
        }
    }
}

torch::Tensor launch_id1(torch::Tensor input_id1) {
    auto result_id1 = torch::empty_like(input_id1);
    int total_id1 = input_id1.numel();
    int grid_id1 = (total_id1 + BLOCK_id1 * UNROLL_id1 - 1) / (BLOCK_id1 * UNROLL_id1);
    hipLaunchKernelGGL(kernel_id1, dim3(grid_id1), dim3(BLOCK_id1), 0, 0,
                       input_id1.data_ptr<float>(), result_id1.data_ptr<float>(), total_id1);
    return result_id1;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_id1, "variant id1");
}
