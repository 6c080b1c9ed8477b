// @HIP:1301a@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1301a = 64;
constexpr int UNROLL_1301a = 3;

__global__ void kernel_1301a(const float* __restrict__ in_1301a, float* __restrict__ out_1301a, int count_1301a) {
    int base_1301a = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1301a;
    #pragma unroll
    for (int step_1301a = 0; step_1301a < UNROLL_1301a; ++step_1301a) {
        int pos_1301a = base_1301a + step_1301a;
        if (pos_1301a < count_1301a) {
            float val_1301a = in_1301a[pos_1301a];
            out_1301a[pos_1301a] = logf(1.0f + expf(val_1301a));
        }
    }
}

torch::Tensor launch_1301a(torch::Tensor input_1301a) {
    auto result_1301a = torch::empty_like(input_1301a);
    int total_1301a = input_1301a.numel();
    int grid_1301a = (total_1301a + BLOCK_1301a * UNROLL_1301a - 1) / (BLOCK_1301a * UNROLL_1301a);
    hipLaunchKernelGGL(kernel_1301a, dim3(grid_1301a), dim3(BLOCK_1301a), 0, 0,
                       input_1301a.data_ptr<float>(), result_1301a.data_ptr<float>(), total_1301a);
    return result_1301a;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1301a, "variant 1301a");
}
