// @HIP:1001c@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1001c = 64;
constexpr int UNROLL_1001c = 1;

__global__ void kernel_1001c(const float* __restrict__ in_1001c, float* __restrict__ out_1001c, int count_1001c) {
    int base_1001c = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1001c;
    #pragma unroll
    for (int step_1001c = 0; step_1001c < UNROLL_1001c; ++step_1001c) {
        int pos_1001c = base_1001c + step_1001c;
        if (pos_1001c < count_1001c) {
            float val_1001c = in_1001c[pos_1001c];
            out_1001c[pos_1001c] = logf(1.0f + expf(val_1001c));
        }
    }
}

torch::Tensor launch_1001c(torch::Tensor input_1001c) {
    auto result_1001c = torch::empty_like(input_1001c);
    int total_1001c = input_1001c.numel();
    int grid_1001c = (total_1001c + BLOCK_1001c * UNROLL_1001c - 1) / (BLOCK_1001c * UNROLL_1001c);
    hipLaunchKernelGGL(kernel_1001c, dim3(grid_1001c), dim3(BLOCK_1001c), 0, 0,
                       input_1001c.data_ptr<float>(), result_1001c.data_ptr<float>(), total_1001c);
    return result_1001c;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1001c, "variant 1001c");
}
