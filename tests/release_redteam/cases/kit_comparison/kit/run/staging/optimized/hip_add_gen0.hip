// @HIP:opt_hip_add@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_opt_hip_add = 256;
constexpr int UNROLL_opt_hip_add = 1;

__global__ void kernel_opt_hip_add(const float* __restrict__ in_opt_hip_add, float* __restrict__ out_opt_hip_add, int count_opt_hip_add) {
    int base_opt_hip_add = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_opt_hip_add;
    #pragma unroll
    for (int step_opt_hip_add = 0; step_opt_hip_add < UNROLL_opt_hip_add; ++step_opt_hip_add) {
        int pos_opt_hip_add = base_opt_hip_add + step_opt_hip_add;
        if (pos_opt_hip_add < count_opt_hip_add) {
            float val_opt_hip_add = in_opt_hip_add[pos_opt_hip_add];
            out_opt_hip_add[pos_opt_hip_add] = val_opt_hip_add * val_opt_hip_add * 0.5f;
        }
    }
}

torch::Tensor launch_opt_hip_add(torch::Tensor input_opt_hip_add) {
    auto result_opt_hip_add = torch::empty_like(input_opt_hip_add);
    int total_opt_hip_add = input_opt_hip_add.numel();
    int grid_opt_hip_add = (total_opt_hip_add + BLOCK_opt_hip_add * UNROLL_opt_hip_add - 1) / (BLOCK_opt_hip_add * UNROLL_opt_hip_add);
    hipLaunchKernelGGL(kernel_opt_hip_add, dim3(grid_opt_hip_add), dim3(BLOCK_opt_hip_add), 0, 0,
                       input_opt_hip_add.data_ptr<float>(), result_opt_hip_add.data_ptr<float>(), total_opt_hip_add);
    return result_opt_hip_add;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_opt_hip_add, "variant opt_hip_add");
}
