// @HIP:2001a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_2001a = 512;
constexpr int UNROLL_2001a = 4;

__global__ void kernel_2001a(const float* __restrict__ in_2001a, float* __restrict__ out_2001a, int count_2001a) {
    int base_2001a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_2001a;
    #pragma unroll
    for (int step_2001a = 0; step_2001a < UNROLL_2001a; ++step_2001a) {
        int pos_2001a = base_2001a + step_2001a;
        if (pos_2001a < count_2001a) {
            float val_2001a = in_2001a[pos_2001a];
            out_2001a[pos_2001a] = 1.0f / (1.0f + expf(-val_2001a));
        }
    }
}

torch::Tensor launch_2001a(torch::Tensor input_2001a) {
    auto result_2001a = torch::empty_like(input_2001a);
    int total_2001a = input_2001a.numel();
    int grid_2001a = (total_2001a + BLOCK_2001a * UNROLL_2001a - 1) / (BLOCK_2001a * UNROLL_2001a);
    hipLaunchKernelGGL(kernel_2001a, dim3(grid_2001a), dim3(BLOCK_2001a), 0, 0,
                       input_2001a.data_ptr<float>(), result_2001a.data_ptr<float>(), total_2001a);
    return result_2001a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_2001a, "variant 2001a");
}
