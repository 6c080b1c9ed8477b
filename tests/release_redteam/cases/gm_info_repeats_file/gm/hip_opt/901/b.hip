// @HIP:901b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_901b = 256;
constexpr int UNROLL_901b = 3;

__global__ void kernel_901b(const float* __restrict__ in_901b, float* __restrict__ out_901b, int count_901b) {
    int base_901b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_901b;
    #pragma unroll
    for (int step_901b = 0; step_901b < UNROLL_901b; ++step_901b) {
        int pos_901b = base_901b + step_901b;
        if (pos_901b < count_901b) {
            float val_901b = in_901b[pos_901b];
            out_901b[pos_901b] = val_901b * (1.0f / (1.0f + expf(-1.702f * val_901b)));
        }
    }
}

torch::Tensor launch_901b(torch::Tensor input_901b) {
    auto result_901b = torch::empty_like(input_901b);
    int total_901b = input_901b.numel();
    int grid_901b = (total_901b + BLOCK_901b * UNROLL_901b - 1) / (BLOCK_901b * UNROLL_901b);
    hipLaunchKernelGGL(kernel_901b, dim3(grid_901b), dim3(BLOCK_901b), 0, 0,
                       input_901b.data_ptr<float>(), result_901b.data_ptr<float>(), total_901b);
    return result_901b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_901b, "variant 901b");
}
