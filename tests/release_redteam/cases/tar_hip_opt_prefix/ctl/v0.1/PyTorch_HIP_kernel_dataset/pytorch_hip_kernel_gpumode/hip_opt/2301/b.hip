// @HIP:2301b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_2301b = 256;
constexpr int UNROLL_2301b = 2;

__global__ void kernel_2301b(const float* __restrict__ in_2301b, float* __restrict__ out_2301b, int count_2301b) {
    int base_2301b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_2301b;
    #pragma unroll
    for (int step_2301b = 0; step_2301b < UNROLL_2301b; ++step_2301b) {
        int pos_2301b = base_2301b + step_2301b;
        if (pos_2301b < count_2301b) {
            float val_2301b = in_2301b[pos_2301b];
            out_2301b[pos_2301b] = fmaxf(val_2301b, 0.0f);
        }
    }
}

torch::Tensor launch_2301b(torch::Tensor input_2301b) {
    auto result_2301b = torch::empty_like(input_2301b);
    int total_2301b = input_2301b.numel();
    int grid_2301b = (total_2301b + BLOCK_2301b * UNROLL_2301b - 1) / (BLOCK_2301b * UNROLL_2301b);
    hipLaunchKernelGGL(kernel_2301b, dim3(grid_2301b), dim3(BLOCK_2301b), 0, 0,
                       input_2301b.data_ptr<float>(), result_2301b.data_ptr<float>(), total_2301b);
    return result_2301b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_2301b, "variant 2301b");
}
