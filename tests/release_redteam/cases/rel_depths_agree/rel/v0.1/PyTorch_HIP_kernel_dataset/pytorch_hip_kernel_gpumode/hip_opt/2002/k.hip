// @HIP:2002k@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_2002k = 256;
constexpr int UNROLL_2002k = 2;

__global__ void kernel_2002k(const float* __restrict__ in_2002k, float* __restrict__ out_2002k, int count_2002k) {
    int base_2002k = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_2002k;
    #pragma unroll
    for (int step_2002k = 0; step_2002k < UNROLL_2002k; ++step_2002k) {
        int pos_2002k = base_2002k + step_2002k;
        if (pos_2002k < count_2002k) {
            float val_2002k = in_2002k[pos_2002k];
            out_2002k[pos_2002k] = sqrtf(fabsf(val_2002k) + 1e-6f);
        }
    }
}

torch::Tensor launch_2002k(torch::Tensor input_2002k) {
    auto result_2002k = torch::empty_like(input_2002k);
    int total_2002k = input_2002k.numel();
    int grid_2002k = (total_2002k + BLOCK_2002k * UNROLL_2002k - 1) / (BLOCK_2002k * UNROLL_2002k);
    hipLaunchKernelGGL(kernel_2002k, dim3(grid_2002k), dim3(BLOCK_2002k), 0, 0,
                       input_2002k.data_ptr<float>(), result_2002k.data_ptr<float>(), total_2002k);
    return result_2002k;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_2002k, "variant 2002k");
}
