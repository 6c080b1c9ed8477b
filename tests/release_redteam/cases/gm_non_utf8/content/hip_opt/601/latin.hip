// @HIP:601latin@ café naïve
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_601latin = 128;
constexpr int UNROLL_601latin = 3;

__global__ void kernel_601latin(const float* __restrict__ in_601latin, float* __restrict__ out_601latin, int count_601latin) {
    int base_601latin = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_601latin;
    #pragma unroll
    for (int step_601latin = 0; step_601latin < UNROLL_601latin; ++step_601latin) {
        int pos_601latin = base_601latin + step_601latin;
        if (pos_601latin < count_601latin) {
            float val_601latin = in_601latin[pos_601latin];
            out_601latin[pos_601latin] = fmaxf(val_601latin, 0.0f);
        }
    }
}

torch::Tensor launch_601latin(torch::Tensor input_601latin) {
    auto result_601latin = torch::empty_like(input_601latin);
    int total_601latin = input_601latin.numel();
    int grid_601latin = (total_601latin + BLOCK_601latin * UNROLL_601latin - 1) / (BLOCK_601latin * UNROLL_601latin);
    hipLaunchKernelGGL(kernel_601latin, dim3(grid_601latin), dim3(BLOCK_601latin), 0, 0,
                       input_601latin.data_ptr<float>(), result_601latin.data_ptr<float>(), total_601latin);
    return result_601latin;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_601latin, "variant 601latin");
}
