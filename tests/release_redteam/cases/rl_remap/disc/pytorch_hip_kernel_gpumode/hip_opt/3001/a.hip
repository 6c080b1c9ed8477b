// @HIP:3001a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_3001a = 64;
constexpr int UNROLL_3001a = 3;

__global__ void kernel_3001a(const float* __restrict__ in_3001a, float* __restrict__ out_3001a, int count_3001a) {
    int base_3001a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_3001a;
    #pragma unroll
    for (int step_3001a = 0; step_3001a < UNROLL_3001a; ++step_3001a) {
        int pos_3001a = base_3001a + step_3001a;
        if (pos_3001a < count_3001a) {
            float val_3001a = in_3001a[pos_3001a];
            out_3001a[pos_3001a] = sinf(val_3001a) * cosf(val_3001a);
        }
    }
}

torch::Tensor launch_3001a(torch::Tensor input_3001a) {
    auto result_3001a = torch::empty_like(input_3001a);
    int total_3001a = input_3001a.numel();
    int grid_3001a = (total_3001a + BLOCK_3001a * UNROLL_3001a - 1) / (BLOCK_3001a * UNROLL_3001a);
    hipLaunchKernelGGL(kernel_3001a, dim3(grid_3001a), dim3(BLOCK_3001a), 0, 0,
                       input_3001a.data_ptr<float>(), result_3001a.data_ptr<float>(), total_3001a);
    return result_3001a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_3001a, "variant 3001a");
}
