// @HIP:1501a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1501a = 128;
constexpr int UNROLL_1501a = 2;

__global__ void kernel_1501a(const float* __restrict__ in_1501a, float* __restrict__ out_1501a, int count_1501a) {
    int base_1501a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1501a;
    #pragma unroll
    for (int step_1501a = 0; step_1501a < UNROLL_1501a; ++step_1501a) {
        int pos_1501a = base_1501a + step_1501a;
        if (pos_1501a < count_1501a) {
            float val_1501a = in_1501a[pos_1501a];
            out_1501a[pos_1501a] = fmaxf(val_1501a, 0.0f);
        }
    }
}

torch::Tensor launch_1501a(torch::Tensor input_1501a) {
    auto result_1501a = torch::empty_like(input_1501a);
    int total_1501a = input_1501a.numel();
    int grid_1501a = (total_1501a + BLOCK_1501a * UNROLL_1501a - 1) / (BLOCK_1501a * UNROLL_1501a);
    hipLaunchKernelGGL(kernel_1501a, dim3(grid_1501a), dim3(BLOCK_1501a), 0, 0,
                       input_1501a.data_ptr<float>(), result_1501a.data_ptr<float>(), total_1501a);
    return result_1501a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1501a, "variant 1501a");
}
