// @HIP:801v0@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_801v0 = 64;
constexpr int UNROLL_801v0 = 2;

__global__ void kernel_801v0(const float* __restrict__ in_801v0, float* __restrict__ out_801v0, int count_801v0) {
    int base_801v0 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_801v0;
    #pragma unroll
    for (int step_801v0 = 0; step_801v0 < UNROLL_801v0; ++step_801v0) {
        int pos_801v0 = base_801v0 + step_801v0;
        if (pos_801v0 < count_801v0) {
            float val_801v0 = in_801v0[pos_801v0];
            out_801v0[pos_801v0] = logf(1.0f + expf(val_801v0));
        }
    }
}

torch::Tensor launch_801v0(torch::Tensor input_801v0) {
    auto result_801v0 = torch::empty_like(input_801v0);
    int total_801v0 = input_801v0.numel();
    int grid_801v0 = (total_801v0 + BLOCK_801v0 * UNROLL_801v0 - 1) / (BLOCK_801v0 * UNROLL_801v0);
    hipLaunchKernelGGL(kernel_801v0, dim3(grid_801v0), dim3(BLOCK_801v0), 0, 0,
                       input_801v0.data_ptr<float>(), result_801v0.data_ptr<float>(), total_801v0);
    return result_801v0;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_801v0, "variant 801v0");
}
