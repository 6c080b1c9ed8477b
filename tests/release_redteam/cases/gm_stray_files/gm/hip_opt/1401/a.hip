// @HIP:1401a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1401a = 512;
constexpr int UNROLL_1401a = 3;

__global__ void kernel_1401a(const float* __restrict__ in_1401a, float* __restrict__ out_1401a, int count_1401a) {
    int base_1401a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1401a;
    #pragma unroll
    for (int step_1401a = 0; step_1401a < UNROLL_1401a; ++step_1401a) {
        int pos_1401a = base_1401a + step_1401a;
        if (pos_1401a < count_1401a) {
            float val_1401a = in_1401a[pos_1401a];
            out_1401a[pos_1401a] = fminf(val_1401a, 6.0f);
        }
    }
}

torch::Tensor launch_1401a(torch::Tensor input_1401a) {
    auto result_1401a = torch::empty_like(input_1401a);
    int total_1401a = input_1401a.numel();
    int grid_1401a = (total_1401a + BLOCK_1401a * UNROLL_1401a - 1) / (BLOCK_1401a * UNROLL_1401a);
    hipLaunchKernelGGL(kernel_1401a, dim3(grid_1401a), dim3(BLOCK_1401a), 0, 0,
                       input_1401a.data_ptr<float>(), result_1401a.data_ptr<float>(), total_1401a);
    return result_1401a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1401a, "variant 1401a");
}
