// @HIP:2202k@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_2202k = 256;
constexpr int UNROLL_2202k = 2;

__global__ void kernel_2202k(const float* __restrict__ in_2202k, float* __restrict__ out_2202k, int count_2202k) {
    int base_2202k = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_2202k;
    #pragma unroll
    for (int step_2202k = 0; step_2202k < UNROLL_2202k; ++step_2202k) {
        int pos_2202k = base_2202k + step_2202k;
        if (pos_2202k < count_2202k) {
            float val_2202k = in_2202k[pos_2202k];
            out_2202k[pos_2202k] = 1.0f / (1.0f + expf(-val_2202k));
        }
    }
}

torch::Tensor launch_2202k(torch::Tensor input_2202k) {
    auto result_2202k = torch::empty_like(input_2202k);
    int total_2202k = input_2202k.numel();
    int grid_2202k = (total_2202k + BLOCK_2202k * UNROLL_2202k - 1) / (BLOCK_2202k * UNROLL_2202k);
    hipLaunchKernelGGL(kernel_2202k, dim3(grid_2202k), dim3(BLOCK_2202k), 0, 0,
                       input_2202k.data_ptr<float>(), result_2202k.data_ptr<float>(), total_2202k);
    return result_2202k;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_2202k, "variant 2202k");
}
