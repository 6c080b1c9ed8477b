// @HIP:2001b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_2001b = 64;
constexpr int UNROLL_2001b = 3;

__global__ void kernel_2001b(const float* __restrict__ in_2001b, float* __restrict__ out_2001b, int count_2001b) {
    int base_2001b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_2001b;
    #pragma unroll
    for (int step_2001b = 0; step_2001b < UNROLL_2001b; ++step_2001b) {
        int pos_2001b = base_2001b + step_2001b;
        if (pos_2001b < count_2001b) {
            float val_2001b = in_2001b[pos_2001b];
            out_2001b[pos_2001b] = logf(1.0f + expf(val_2001b));
        }
    }
}

torch::Tensor launch_2001b(torch::Tensor input_2001b) {
    auto result_2001b = torch::empty_like(input_2001b);
    int total_2001b = input_2001b.numel();
    int grid_2001b = (total_2001b + BLOCK_2001b * UNROLL_2001b - 1) / (BLOCK_2001b * UNROLL_2001b);
    hipLaunchKernelGGL(kernel_2001b, dim3(grid_2001b), dim3(BLOCK_2001b), 0, 0,
                       input_2001b.data_ptr<float>(), result_2001b.data_ptr<float>(), total_2001b);
    return result_2001b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_2001b, "variant 2001b");
}
