// @HIP:501good@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_501good = 128;
constexpr int UNROLL_501good = 3;

__global__ void kernel_501good(const float* __restrict__ in_501good, float* __restrict__ out_501good, int count_501good) {
    int base_501good = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_501good;
    #pragma unroll
    for (int step_501good = 0; step_501good < UNROLL_501good; ++step_501good) {
        int pos_501good = base_501good + step_501good;
        if (pos_501good < count_501good) {
            float val_501good = in_501good[pos_501good];
            out_501good[pos_501good] = tanhf(val_501good) + 0.25f;
        }
    }
}

torch::Tensor launch_501good(torch::Tensor input_501good) {
    auto result_501good = torch::empty_like(input_501good);
    int total_501good = input_501good.numel();
    int grid_501good = (total_501good + BLOCK_501good * UNROLL_501good - 1) / (BLOCK_501good * UNROLL_501good);
    hipLaunchKernelGGL(kernel_501good, dim3(grid_501good), dim3(BLOCK_501good), 0, 0,
                       input_501good.data_ptr<float>(), result_501good.data_ptr<float>(), total_501good);
    return result_501good;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_501good, "variant 501good");
}
