// @HIP:1301c@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1301c = 256;
constexpr int UNROLL_1301c = 4;

__global__ void kernel_1301c(const float* __restrict__ in_1301c, float* __restrict__ out_1301c, int count_1301c) {
    int base_1301c = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1301c;
    #pragma unroll
    for (int step_1301c = 0; step_1301c < UNROLL_1301c; ++step_1301c) {
        int pos_1301c = base_1301c + step_1301c;
        if (pos_1301c < count_1301c) {
            float val_1301c = in_1301c[pos_1301c];
            out_1301c[pos_1301c] = fmaxf(val_1301c, 0.0f);
        }
    }
}

torch::Tensor launch_1301c(torch::Tensor input_1301c) {
    auto result_1301c = torch::empty_like(input_1301c);
    int total_1301c = input_1301c.numel();
    int grid_1301c = (total_1301c + BLOCK_1301c * UNROLL_1301c - 1) / (BLOCK_1301c * UNROLL_1301c);
    hipLaunchKernelGGL(kernel_1301c, dim3(grid_1301c), dim3(BLOCK_1301c), 0, 0,
                       input_1301c.data_ptr<float>(), result_1301c.data_ptr<float>(), total_1301c);
    return result_1301c;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1301c, "variant 1301c");
}
