// @HIP:302z@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_302z = 128;
constexpr int UNROLL_302z = 2;

__global__ void kernel_302z(const float* __restrict__ in_302z, float* __restrict__ out_302z, int count_302z) {
    int base_302z = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_302z;
    #pragma unroll
    for (int step_302z = 0; step_302z < UNROLL_302z; ++step_302z) {
        int pos_302z = base_302z + step_302z;
        if (pos_302z < count_302z) {
            float val_302z = in_302z[pos_302z];
            out_302z[pos_302z] = logf(1.0f + expf(val_302z));
        }
    }
}

torch::Tensor launch_302z(torch::Tensor input_302z) {
    auto result_302z = torch::empty_like(input_302z);
    int total_302z = input_302z.numel();
    int grid_302z = (total_302z + BLOCK_302z * UNROLL_302z - 1) / (BLOCK_302z * UNROLL_302z);
    hipLaunchKernelGGL(kernel_302z, dim3(grid_302z), dim3(BLOCK_302z), 0, 0,
                       input_302z.data_ptr<float>(), result_302z.data_ptr<float>(), total_302z);
    return result_302z;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_302z, "variant 302z");
}
