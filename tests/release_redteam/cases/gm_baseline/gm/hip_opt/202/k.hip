// @HIP:202k@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_202k = 64;
constexpr int UNROLL_202k = 3;

__global__ void kernel_202k(const float* __restrict__ in_202k, float* __restrict__ out_202k, int count_202k) {
    int base_202k = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_202k;
    #pragma unroll
    for (int step_202k = 0; step_202k < UNROLL_202k; ++step_202k) {
        int pos_202k = base_202k + step_202k;
        if (pos_202k < count_202k) {
            float val_202k = in_202k[pos_202k];
            out_202k[pos_202k] = sqrtf(fabsf(val_202k) + 1e-6f);
        }
    }
}

torch::Tensor launch_202k(torch::Tensor input_202k) {
    auto result_202k = torch::empty_like(input_202k);
    int total_202k = input_202k.numel();
    int grid_202k = (total_202k + BLOCK_202k * UNROLL_202k - 1) / (BLOCK_202k * UNROLL_202k);
    hipLaunchKernelGGL(kernel_202k, dim3(grid_202k), dim3(BLOCK_202k), 0, 0,
                       input_202k.data_ptr<float>(), result_202k.data_ptr<float>(), total_202k);
    return result_202k;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_202k, "variant 202k");
}
