// @HIP:loose@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_loose = 512;
constexpr int UNROLL_loose = 2;

__global__ void kernel_loose(const float* __restrict__ in_loose, float* __restrict__ out_loose, int count_loose) {
    int base_loose = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_loose;
    #pragma unroll
    for (int step_loose = 0; step_loose < UNROLL_loose; ++step_loose) {
        int pos_loose = base_loose + step_loose;
        if (pos_loose < count_loose) {
            float val_loose = in_loose[pos_loose];
            out_loose[pos_loose] = sqrtf(fabsf(val_loose) + 1e-6f);
        }
    }
}

torch::Tensor launch_loose(torch::Tensor input_loose) {
    auto result_loose = torch::empty_like(input_loose);
    int total_loose = input_loose.numel();
    int grid_loose = (total_loose + BLOCK_loose * UNROLL_loose - 1) / (BLOCK_loose * UNROLL_loose);
    hipLaunchKernelGGL(kernel_loose, dim3(grid_loose), dim3(BLOCK_loose), 0, 0,
                       input_loose.data_ptr<float>(), result_loose.data_ptr<float>(), total_loose);
    return result_loose;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_loose, "variant loose");
}
