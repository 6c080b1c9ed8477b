// @HIP:1301b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1301b = 512;
constexpr int UNROLL_1301b = 4;

__global__ void kernel_1301b(const float* __restrict__ in_1301b, float* __restrict__ out_1301b, int count_1301b) {
    int base_1301b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1301b;
    #pragma unroll
    for (int step_1301b = 0; step_1301b < UNROLL_1301b; ++step_1301b) {
        int pos_1301b = base_1301b + step_1301b;
        if (pos_1301b < count_1301b) {
            float val_1301b = in_1301b[pos_1301b];
            out_1301b[pos_1301b] = 1.0f / (1.0f + expf(-val_1301b));
        }
    }
}

torch::Tensor launch_1301b(torch::Tensor input_1301b) {
    auto result_1301b = torch::empty_like(input_1301b);
    int total_1301b = input_1301b.numel();
    int grid_1301b = (total_1301b + BLOCK_1301b * UNROLL_1301b - 1) / (BLOCK_1301b * UNROLL_1301b);
    hipLaunchKernelGGL(kernel_1301b, dim3(grid_1301b), dim3(BLOCK_1301b), 0, 0,
                       input_1301b.data_ptr<float>(), result_1301b.data_ptr<float>(), total_1301b);
    return result_1301b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1301b, "variant 1301b");
}
