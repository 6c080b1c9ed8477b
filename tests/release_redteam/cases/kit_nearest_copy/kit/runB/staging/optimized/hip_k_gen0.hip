// @HIP:candB@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_candB = 128;
constexpr int UNROLL_candB = 3;

__global__ void kernel_candB(const float* __restrict__ in_candB, float* __restrict__ out_candB, int count_candB) {
    int base_candB = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_candB;
    #pragma unroll
    for (int step_candB = 0; step_candB < UNROLL_candB; ++step_candB) {
        int pos_candB = base_candB + step_candB;
        if (pos_candB < count_candB) {
            float val_candB = in_candB[pos_candB];
            out_candB[pos_candB] = val_candB * (1.0f / (1.0f + expf(-1.702f * val_candB)));
        }
    }
}

torch::Tensor launch_candB(torch::Tensor input_candB) {
    auto result_candB = torch::empty_like(input_candB);
    int total_candB = input_candB.numel();
    int grid_candB = (total_candB + BLOCK_candB * UNROLL_candB - 1) / (BLOCK_candB * UNROLL_candB);
    hipLaunchKernelGGL(kernel_candB, dim3(grid_candB), dim3(BLOCK_candB), 0, 0,
                       input_candB.data_ptr<float>(), result_candB.data_ptr<float>(), total_candB);
    return result_candB;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_candB, "variant candB");
}
