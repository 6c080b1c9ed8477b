// @HIP:7a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_7a = 64;
constexpr int UNROLL_7a = 4;

__global__ void kernel_7a(const float* __restrict__ in_7a, float* __restrict__ out_7a, int count_7a) {
    int base_7a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_7a;
    #pragma unroll
    for (int step_7a = 0; step_7a < UNROLL_7a; ++step_7a) {
        int pos_7a = base_7a + step_7a;
        if (pos_7a < count_7a) {
            float val_7a = in_7a[pos_7a];
            out_7a[pos_7a] = val_7a * (1.0f / (1.0f + expf(-1.702f * val_7a)));
        }
    }
}

torch::Tensor launch_7a(torch::Tensor input_7a) {
    auto result_7a = torch::empty_like(input_7a);
    int total_7a = input_7a.numel();
    int grid_7a = (total_7a + BLOCK_7a * UNROLL_7a - 1) / (BLOCK_7a * UNROLL_7a);
    hipLaunchKernelGGL(kernel_7a, dim3(grid_7a), dim3(BLOCK_7a), 0, 0,
                       input_7a.data_ptr<float>(), result_7a.data_ptr<float>(), total_7a);
    return result_7a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_7a, "variant 7a");
}
