// @HIP:3302k@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_3302k = 512;
constexpr int UNROLL_3302k = 4;

__global__ void kernel_3302k(const float* __restrict__ in_3302k, float* __restrict__ out_3302k, int count_3302k) {
    int base_3302k = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_3302k;
    #pragma unroll
    for (int step_3302k = 0; step_3302k < UNROLL_3302k; ++step_3302k) {
        int pos_3302k = base_3302k + step_3302k;
        if (pos_3302k < count_3302k) {
            float val_3302k = in_3302k[pos_3302k];
            out_3302k[pos_3302k] = val_3302k * (1.0f / (1.0f + expf(-1.702f * val_3302k)));
        }
    }
}

torch::Tensor launch_3302k(torch::Tensor input_3302k) {
    auto result_3302k = torch::empty_like(input_3302k);
    int total_3302k = input_3302k.numel();
    int grid_3302k = (total_3302k + BLOCK_3302k * UNROLL_3302k - 1) / (BLOCK_3302k * UNROLL_3302k);
    hipLaunchKernelGGL(kernel_3302k, dim3(grid_3302k), dim3(BLOCK_3302k), 0, 0,
                       input_3302k.data_ptr<float>(), result_3302k.data_ptr<float>(), total_3302k);
    return result_3302k;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_3302k, "variant 3302k");
}
