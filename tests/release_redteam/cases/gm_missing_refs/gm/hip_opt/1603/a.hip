// @HIP:1603a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1603a = 512;
constexpr int UNROLL_1603a = 1;

__global__ void kernel_1603a(const float* __restrict__ in_1603a, float* __restrict__ out_1603a, int count_1603a) {
    int base_1603a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1603a;
    #pragma unroll
    for (int step_1603a = 0; step_1603a < UNROLL_1603a; ++step_1603a) {
        int pos_1603a = base_1603a + step_1603a;
        if (pos_1603a < count_1603a) {
            float val_1603a = in_1603a[pos_1603a];
            out_1603a[pos_1603a] = logf(1.0f + expf(val_1603a));
        }
    }
}

torch::Tensor launch_1603a(torch::Tensor input_1603a) {
    auto result_1603a = torch::empty_like(input_1603a);
    int total_1603a = input_1603a.numel();
    int grid_1603a = (total_1603a + BLOCK_1603a * UNROLL_1603a - 1) / (BLOCK_1603a * UNROLL_1603a);
    hipLaunchKernelGGL(kernel_1603a, dim3(grid_1603a), dim3(BLOCK_1603a), 0, 0,
                       input_1603a.data_ptr<float>(), result_1603a.data_ptr<float>(), total_1603a);
    return result_1603a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1603a, "variant 1603a");
}
