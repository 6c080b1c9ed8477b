// @HIP:id100@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_id100 = 64;
constexpr int UNROLL_id100 = 4;

__global__ void kernel_id100(const float* __restrict__ in_id100, float* __restrict__ out_id100, int count_id100) {
    int base_id100 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_id100;
    #pragma unroll
    for (int step_id100 = 0; step_id100 < UNROLL_id100; ++step_id100) {
        int pos_id100 = base_id100 + step_id100;
        if (pos_id100 < count_id100) {
            float val_id100 = in_id100[pos_id100];
            out_id100[pos_id100] = val_id100 * (1.0f / (1.0f + expf(-1.702f * val_id100)));
        }
    }
}

torch::Tensor launch_id100(torch::Tensor input_id100) {
    auto result_id100 = torch::empty_like(input_id100);
    int total_id100 = input_id100.numel();
    int grid_id100 = (total_id100 + BLOCK_id100 * UNROLL_id100 - 1) / (BLOCK_id100 * UNROLL_id100);
    hipLaunchKernelGGL(kernel_id100, dim3(grid_id100), dim3(BLOCK_id100), 0, 0,
                       input_id100.data_ptr<float>(), result_id100.data_ptr<float>(), total_id100);
    return result_id100;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_id100, "variant id100");
}
