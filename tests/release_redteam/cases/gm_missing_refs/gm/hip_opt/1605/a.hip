// @HIP:1605a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1605a = 512;
constexpr int UNROLL_1605a = 4;

__global__ void kernel_1605a(const float* __restrict__ in_1605a, float* __restrict__ out_1605a, int count_1605a) {
    int base_1605a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1605a;
    #pragma unroll
    for (int step_1605a = 0; step_1605a < UNROLL_1605a; ++step_1605a) {
        int pos_1605a = base_1605a + step_1605a;
        if (pos_1605a < count_1605a) {
            float val_1605a = in_1605a[pos_1605a];
            out_1605a[pos_1605a] = logf(1.0f + expf(val_1605a));
        }
    }
}

torch::Tensor launch_1605a(torch::Tensor input_1605a) {
    auto result_1605a = torch::empty_like(input_1605a);
    int total_1605a = input_1605a.numel();
    int grid_1605a = (total_1605a + BLOCK_1605a * UNROLL_1605a - 1) / (BLOCK_1605a * UNROLL_1605a);
    hipLaunchKernelGGL(kernel_1605a, dim3(grid_1605a), dim3(BLOCK_1605a), 0, 0,
                       input_1605a.data_ptr<float>(), result_1605a.data_ptr<float>(), total_1605a);
    return result_1605a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1605a, "variant 1605a");
}
