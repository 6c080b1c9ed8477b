// @HIP:base_hip_add@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_base_hip_add = 64;
constexpr int UNROLL_base_hip_add = 4;

__global__ void kernel_base_hip_add(const float* __restrict__ in_base_hip_add, float* __restrict__ out_base_hip_add, int count_base_hip_add) {
    int base_base_hip_add = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_base_hip_add;
    #pragma unroll
    for (int step_base_hip_add = 0; step_base_hip_add < UNROLL_base_hip_add; ++step_base_hip_add) {
        int pos_base_hip_add = base_base_hip_add + step_base_hip_add;
        if (pos_base_hip_add < count_base_hip_add) {
            float val_base_hip_add = in_base_hip_add[pos_base_hip_add];
            out_base_hip_add[pos_base_hip_add] = fmaxf(val_base_hip_add, 0.0f);
        }
    }
}

torch::Tensor launch_base_hip_add(torch::Tensor input_base_hip_add) {
    auto result_base_hip_add = torch::empty_like(input_base_hip_add);
    int total_base_hip_add = input_base_hip_add.numel();
    int grid_base_hip_add = (total_base_hip_add + BLOCK_base_hip_add * UNROLL_base_hip_add - 1) / (BLOCK_base_hip_add * UNROLL_base_hip_add);
    hipLaunchKernelGGL(kernel_base_hip_add, dim3(grid_base_hip_add), dim3(BLOCK_base_hip_add), 0, 0,
                       input_base_hip_add.data_ptr<float>(), result_base_hip_add.data_ptr<float>(), total_base_hip_add);
    return result_base_hip_add;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_base_hip_add, "variant base_hip_add");
}
