// @HIP:idx@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_idx = 128;
constexpr int UNROLL_idx = 3;

__global__ void kernel_idx(const float* __restrict__ in_idx, float* __restrict__ out_idx, int count_idx) {
    int base_idx = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_idx;
    #pragma unroll
    for (int step_idx = 0; step_idx < UNROLL_idx; ++step_idx) {
        int pos_idx = base_idx + step_idx;
        if (pos_idx < count_idx) {
            float val_idx = in_idx[pos_idx];
            out_idx[pos_idx] = sinf(val_idx) * cosf(val_idx);
        }
    }
}

torch::Tensor launch_idx(torch::Tensor input_idx) {
    auto result_idx = torch::empty_like(input_idx);
    int total_idx = input_idx.numel();
    int grid_idx = (total_idx + BLOCK_idx * UNROLL_idx - 1) / (BLOCK_idx * UNROLL_idx);
    hipLaunchKernelGGL(kernel_idx, dim3(grid_idx), dim3(BLOCK_idx), 0, 0,
                       input_idx.data_ptr<float>(), result_idx.data_ptr<float>(), total_idx);
    return result_idx;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_idx, "variant idx");
}
