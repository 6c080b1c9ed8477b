// @HIP:1001d@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1001d = 256;
constexpr int UNROLL_1001d = 2;

__global__ void kernel_1001d(const float* __restrict__ in_1001d, float* __restrict__ out_1001d, int count_1001d) {
    int base_1001d = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1001d;
    #pragma unroll
    for (int step_1001d = 0; step_1001d < UNROLL_1001d; ++step_1001d) {
        int pos_1001d = base_1001d + step_1001d;
        if (pos_1001d < count_1001d) {
            float val_1001d = in_1001d[pos_1001d];
            out_1001d[pos_1001d] = (val_1001d > 0.0f ? val_1001d : 0.01f * val_1001d);
        }
    }
}

torch::Tensor launch_1001d(torch::Tensor input_1001d) {
    auto result_1001d = torch::empty_like(input_1001d);
    int total_1001d = input_1001d.numel();
    int grid_1001d = (total_1001d + BLOCK_1001d * UNROLL_1001d - 1) / (BLOCK_1001d * UNROLL_1001d);
    hipLaunchKernelGGL(kernel_1001d, dim3(grid_1001d), dim3(BLOCK_1001d), 0, 0,
                       input_1001d.data_ptr<float>(), result_1001d.data_ptr<float>(), total_1001d);
    return result_1001d;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1001d, "variant 1001d");
}
