// @HIP:obj_k2@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_obj_k2 = 64;
constexpr int UNROLL_obj_k2 = 2;

__global__ void kernel_obj_k2(const float* __restrict__ in_obj_k2, float* __restrict__ out_obj_k2, int count_obj_k2) {
    int base_obj_k2 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_obj_k2;
    #pragma unroll
    for (int step_obj_k2 = 0; step_obj_k2 < UNROLL_obj_k2; ++step_obj_k2) {
        int pos_obj_k2 = base_obj_k2 + step_obj_k2;
        if (pos_obj_k2 < count_obj_k2) {
            float val_obj_k2 = in_obj_k2[pos_obj_k2];
            out_obj_k2[pos_obj_k2] = val_obj_k2 * val_obj_k2 * 0.5f;
        }
    }
}

torch::Tensor launch_obj_k2(torch::Tensor input_obj_k2) {
    auto result_obj_k2 = torch::empty_like(input_obj_k2);
    int total_obj_k2 = input_obj_k2.numel();
    int grid_obj_k2 = (total_obj_k2 + BLOCK_obj_k2 * UNROLL_obj_k2 - 1) / (BLOCK_obj_k2 * UNROLL_obj_k2);
    hipLaunchKernelGGL(kernel_obj_k2, dim3(grid_obj_k2), dim3(BLOCK_obj_k2), 0, 0,
                       input_obj_k2.data_ptr<float>(), result_obj_k2.data_ptr<float>(), total_obj_k2);
    return result_obj_k2;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_obj_k2, "variant obj_k2");
}
