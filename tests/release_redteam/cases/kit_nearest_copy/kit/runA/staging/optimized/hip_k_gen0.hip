// @HIP:candA@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_candA = 256;
constexpr int UNROLL_candA = 4;

__global__ void kernel_candA(const float* __restrict__ in_candA, float* __restrict__ out_candA, int count_candA) {
    int base_candA = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_candA;
    #pragma unroll
    for (int step_candA = 0; step_candA < UNROLL_candA; ++step_candA) {
        int pos_candA = base_candA + step_candA;
        if (pos_candA < count_candA) {
            float val_candA = in_candA[pos_candA];
            out_candA[pos_candA] = val_candA * val_candA * 0.5f;
        }
    }
}

torch::Tensor launch_candA(torch::Tensor input_candA) {
    auto result_candA = torch::empty_like(input_candA);
    int total_candA = input_candA.numel();
    int grid_candA = (total_candA + BLOCK_candA * UNROLL_candA - 1) / (BLOCK_candA * UNROLL_candA);
    hipLaunchKernelGGL(kernel_candA, dim3(grid_candA), dim3(BLOCK_candA), 0, 0,
                       input_candA.data_ptr<float>(), result_candA.data_ptr<float>(), total_candA);
    return result_candA;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_candA, "variant candA");
}
