// @HIP:1001e@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1001e = 512;
constexpr int UNROLL_1001e = 2;

__global__ void kernel_1001e(const float* __restrict__ in_1001e, float* __restrict__ out_1001e, int count_1001e) {
    int base_1001e = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1001e;
    #pragma unroll
    for (int step_1001e = 0; step_1001e < UNROLL_1001e; ++step_1001e) {
        int pos_1001e = base_1001e + step_1001e;
        if (pos_1001e < count_1001e) {
            float val_1001e = in_1001e[pos_1001e];
            out_1001e[pos_1001e] = (val_1001e > 0.0f ? val_1001e : 0.01f * val_1001e);
        }
    }
}

torch::Tensor launch_1001e(torch::Tensor input_1001e) {
    auto result_1001e = torch::empty_like(input_1001e);
    int total_1001e = input_1001e.numel();
    int grid_1001e = (total_1001e + BLOCK_1001e * UNROLL_1001e - 1) / (BLOCK_1001e * UNROLL_1001e);
    hipLaunchKernelGGL(kernel_1001e, dim3(grid_1001e), dim3(BLOCK_1001e), 0, 0,
                       input_1001e.data_ptr<float>(), result_1001e.data_ptr<float>(), total_1001e);
    return result_1001e;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1001e, "variant 1001e");
}
