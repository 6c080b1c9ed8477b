// @HIP:1101a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1101a = 64;
constexpr int UNROLL_1101a = 3;

__global__ void kernel_1101a(const float* __restrict__ in_1101a, float* __restrict__ out_1101a, int count_1101a) {
    int base_1101a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1101a;
    #pragma unroll
    for (int step_1101a = 0; step_1101a < UNROLL_1101a; ++step_1101a) {
        int pos_1101a = base_1101a + step_1101a;
        if (pos_1101a < count_1101a) {
            float val_1101a = in_1101a[pos_1101a];
            out_1101a[pos_1101a] = (val_1101a > 0.0f ? val_1101a : 0.01f * val_1101a);
        }
    }
}

torch::Tensor launch_1101a(torch::Tensor input_1101a) {
    auto result_1101a = torch::empty_like(input_1101a);
    int total_1101a = input_1101a.numel();
    int grid_1101a = (total_1101a + BLOCK_1101a * UNROLL_1101a - 1) / (BLOCK_1101a * UNROLL_1101a);
    hipLaunchKernelGGL(kernel_1101a, dim3(grid_1101a), dim3(BLOCK_1101a), 0, 0,
                       input_1101a.data_ptr<float>(), result_1101a.data_ptr<float>(), total_1101a);
    return result_1101a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1101a, "variant 1101a");
}
