// @HIP:2302k@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_2302k = 64;
constexpr int UNROLL_2302k = 3;

__global__ void kernel_2302k(const float* __restrict__ in_2302k, float* __restrict__ out_2302k, int count_2302k) {
    int base_2302k = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_2302k;
    #pragma unroll
    for (int step_2302k = 0; step_2302k < UNROLL_2302k; ++step_2302k) {
        int pos_2302k = base_2302k + step_2302k;
        if (pos_2302k < count_2302k) {
            float val_2302k = in_2302k[pos_2302k];
            out_2302k[pos_2302k] = (val_2302k > 0.0f ? val_2302k : 0.01f * val_2302k);
        }
    }
}

torch::Tensor launch_2302k(torch::Tensor input_2302k) {
    auto result_2302k = torch::empty_like(input_2302k);
    int total_2302k = input_2302k.numel();
    int grid_2302k = (total_2302k + BLOCK_2302k * UNROLL_2302k - 1) / (BLOCK_2302k * UNROLL_2302k);
    hipLaunchKernelGGL(kernel_2302k, dim3(grid_2302k), dim3(BLOCK_2302k), 0, 0,
                       input_2302k.data_ptr<float>(), result_2302k.data_ptr<float>(), total_2302k);
    return result_2302k;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_2302k, "variant 2302k");
}
