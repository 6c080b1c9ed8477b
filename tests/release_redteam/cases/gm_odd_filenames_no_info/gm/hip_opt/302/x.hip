// @HIP:302x@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_302x = 512;
constexpr int UNROLL_302x = 1;

__global__ void kernel_302x(const float* __restrict__ in_302x, float* __restrict__ out_302x, int count_302x) {
    int base_302x = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_302x;
    #pragma unroll
    for (int step_302x = 0; step_302x < UNROLL_302x; ++step_302x) {
        int pos_302x = base_302x + step_302x;
        if (pos_302x < count_302x) {
            float val_302x = in_302x[pos_302x];
            out_302x[pos_302x] = fmaxf(val_302x, 0.0f);
        }
    }
}

torch::Tensor launch_302x(torch::Tensor input_302x) {
    auto result_302x = torch::empty_like(input_302x);
    int total_302x = input_302x.numel();
    int grid_302x = (total_302x + BLOCK_302x * UNROLL_302x - 1) / (BLOCK_302x * UNROLL_302x);
    hipLaunchKernelGGL(kernel_302x, dim3(grid_302x), dim3(BLOCK_302x), 0, 0,
                       input_302x.data_ptr<float>(), result_302x.data_ptr<float>(), total_302x);
    return result_302x;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_302x, "variant 302x");
}
