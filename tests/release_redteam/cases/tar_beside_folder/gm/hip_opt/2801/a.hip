// @HIP:2801a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_2801a = 128;
constexpr int UNROLL_2801a = 4;

__global__ void kernel_2801a(const float* __restrict__ in_2801a, float* __restrict__ out_2801a, int count_2801a) {
    int base_2801a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_2801a;
    #pragma unroll
    for (int step_2801a = 0; step_2801a < UNROLL_2801a; ++step_2801a) {
        int pos_2801a = base_2801a + step_2801a;
        if (pos_2801a < count_2801a) {
            float val_2801a = in_2801a[pos_2801a];
            out_2801a[pos_2801a] = val_2801a * (1.0f / (1.0f + expf(-1.702f * val_2801a)));
        }
    }
}

torch::Tensor launch_2801a(torch::Tensor input_2801a) {
    auto result_2801a = torch::empty_like(input_2801a);
    int total_2801a = input_2801a.numel();
    int grid_2801a = (total_2801a + BLOCK_2801a * UNROLL_2801a - 1) / (BLOCK_2801a * UNROLL_2801a);
    hipLaunchKernelGGL(kernel_2801a, dim3(grid_2801a), dim3(BLOCK_2801a), 0, 0,
                       input_2801a.data_ptr<float>(), result_2801a.data_ptr<float>(), total_2801a);
    return result_2801a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_2801a, "variant 2801a");
}
