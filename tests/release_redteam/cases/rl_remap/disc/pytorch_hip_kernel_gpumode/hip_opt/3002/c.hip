// @HIP:3002c@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_3002c = 256;
constexpr int UNROLL_3002c = 1;

__global__ void kernel_3002c(const float* __restrict__ in_3002c, float* __restrict__ out_3002c, int count_3002c) {
    int base_3002c = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_3002c;
    #pragma unroll
    for (int step_3002c = 0; step_3002c < UNROLL_3002c; ++step_3002c) {
        int pos_3002c = base_3002c + step_3002c;
        if (pos_3002c < count_3002c) {
            float val_3002c = in_3002c[pos_3002c];
            out_3002c[pos_3002c] = val_3002c * (1.0f / (1.0f + expf(-1.702f * val_3002c)));
        }
    }
}

torch::Tensor launch_3002c(torch::Tensor input_3002c) {
    auto result_3002c = torch::empty_like(input_3002c);
    int total_3002c = input_3002c.numel();
    int grid_3002c = (total_3002c + BLOCK_3002c * UNROLL_3002c - 1) / (BLOCK_3002c * UNROLL_3002c);
    hipLaunchKernelGGL(kernel_3002c, dim3(grid_3002c), dim3(BLOCK_3002c), 0, 0,
                       input_3002c.data_ptr<float>(), result_3002c.data_ptr<float>(), total_3002c);
    return result_3002c;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_3002c, "variant 3002c");
}
