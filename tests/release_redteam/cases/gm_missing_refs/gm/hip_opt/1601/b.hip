// @HIP:1601b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1601b = 64;
constexpr int UNROLL_1601b = 4;

__global__ void kernel_1601b(const float* __restrict__ in_1601b, float* __restrict__ out_1601b, int count_1601b) {
    int base_1601b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1601b;
    #pragma unroll
    for (int step_1601b = 0; step_1601b < UNROLL_1601b; ++step_1601b) {
        int pos_1601b = base_1601b + step_1601b;
        if (pos_1601b < count_1601b) {
            float val_1601b = in_1601b[pos_1601b];
            out_1601b[pos_1601b] = fmaxf(val_1601b, 0.0f);
        }
    }
}

torch::Tensor launch_1601b(torch::Tensor input_1601b) {
    auto result_1601b = torch::empty_like(input_1601b);
    int total_1601b = input_1601b.numel();
    int grid_1601b = (total_1601b + BLOCK_1601b * UNROLL_1601b - 1) / (BLOCK_1601b * UNROLL_1601b);
    hipLaunchKernelGGL(kernel_1601b, dim3(grid_1601b), dim3(BLOCK_1601b), 0, 0,
                       input_1601b.data_ptr<float>(), result_1601b.data_ptr<float>(), total_1601b);
    return result_1601b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1601b, "variant 1601b");
}
