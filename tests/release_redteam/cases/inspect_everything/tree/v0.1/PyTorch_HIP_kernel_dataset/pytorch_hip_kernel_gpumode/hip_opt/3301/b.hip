// @HIP:3301b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_3301b = 128;
constexpr int UNROLL_3301b = 1;

__global__ void kernel_3301b(const float* __restrict__ in_3301b, float* __restrict__ out_3301b, int count_3301b) {
    int base_3301b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_3301b;
    #pragma unroll
    for (int step_3301b = 0; step_3301b < UNROLL_3301b; ++step_3301b) {
        int pos_3301b = base_3301b + step_3301b;
        if (pos_3301b < count_3301b) {
            float val_3301b = in_3301b[pos_3301b];
            out_3301b[pos_3301b] = 1.0f / (1.0f + expf(-val_3301b));
        }
    }
}

torch::Tensor launch_3301b(torch::Tensor input_3301b) {
    auto result_3301b = torch::empty_like(input_3301b);
    int total_3301b = input_3301b.numel();
    int grid_3301b = (total_3301b + BLOCK_3301b * UNROLL_3301b - 1) / (BLOCK_3301b * UNROLL_3301b);
    hipLaunchKernelGGL(kernel_3301b, dim3(grid_3301b), dim3(BLOCK_3301b), 0, 0,
                       input_3301b.data_ptr<float>(), result_3301b.data_ptr<float>(), total_3301b);
    return result_3301b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_3301b, "variant 3301b");
}
