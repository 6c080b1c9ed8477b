// @HIP:orig_hip_add@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_orig_hip_add = 64;
constexpr int UNROLL_orig_hip_add = 2;

__global__ void kernel_orig_hip_add(const float* __restrict__ in_orig_hip_add, float* __restrict__ out_orig_hip_add, int count_orig_hip_add) {
    int base_orig_hip_add = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_orig_hip_add;
    #pragma unroll
    for (int step_orig_hip_add = 0; step_orig_hip_add < UNROLL_orig_hip_add; ++step_orig_hip_add) {
        int pos_orig_hip_add = base_orig_hip_add + step_orig_hip_add;
        if (pos_orig_hip_add < count_orig_hip_add) {
            float val_orig_hip_add = in_orig_hip_add[pos_orig_hip_add];
            out_orig_hip_add[pos_orig_hip_add] = val_orig_hip_add * (1.0f / (1.0f + expf(-1.702f * val_orig_hip_add)));
        }
    }
}

torch::Tensor launch_orig_hip_add(torch::Tensor input_orig_hip_add) {
    auto result_orig_hip_add = torch::empty_like(input_orig_hip_add);
    int total_orig_hip_add = input_orig_hip_add.numel();
    int grid_orig_hip_add = (total_orig_hip_add + BLOCK_orig_hip_add * UNROLL_orig_hip_add - 1) / (BLOCK_orig_hip_add * UNROLL_orig_hip_add);
    hipLaunchKernelGGL(kernel_orig_hip_add, dim3(grid_orig_hip_add), dim3(BLOCK_orig_hip_add), 0, 0,
                       input_orig_hip_add.data_ptr<float>(), result_orig_hip_add.data_ptr<float>(), total_orig_hip_add);
    return result_orig_hip_add;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_orig_hip_add, "variant orig_hip_add");
}
