// @HIP:3001b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_3001b = 512;
constexpr int UNROLL_3001b = 4;

__global__ void kernel_3001b(const float* __restrict__ in_3001b, float* __restrict__ out_3001b, int count_3001b) {
    int base_3001b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_3001b;
    #pragma unroll
    for (int step_3001b = 0; step_3001b < UNROLL_3001b; ++step_3001b) {
        int pos_3001b = base_3001b + step_3001b;
        if (pos_3001b < count_3001b) {
            float val_3001b = in_3001b[pos_3001b];
            out_3001b[pos_3001b] = tanhf(val_3001b) + 0.25f;
        }
    }
}

torch::Tensor launch_3001b(torch::Tensor input_3001b) {
    auto result_3001b = torch::empty_like(input_3001b);
    int total_3001b = input_3001b.numel();
    int grid_3001b = (total_3001b + BLOCK_3001b * UNROLL_3001b - 1) / (BLOCK_3001b * UNROLL_3001b);
    hipLaunchKernelGGL(kernel_3001b, dim3(grid_3001b), dim3(BLOCK_3001b), 0, 0,
                       input_3001b.data_ptr<float>(), result_3001b.data_ptr<float>(), total_3001b);
    return result_3001b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_3001b, "variant 3001b");
}
