// @HIP:1501old@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1501old = 512;
constexpr int UNROLL_1501old = 2;

__global__ void kernel_1501old(const float* __restrict__ in_1501old, float* __restrict__ out_1501old, int count_1501old) {
    int base_1501old = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1501old;
    #pragma unroll
    for (int step_1501old = 0; step_1501old < UNROLL_1501old; ++step_1501old) {
        int pos_1501old = base_1501old + step_1501old;
        if (pos_1501old < count_1501old) {
            float val_1501old = in_1501old[pos_1501old];
            out_1501old[pos_1501old] = sqrtf(fabsf(val_1501old) + 1e-6f);
        }
    }
}

torch::Tensor launch_1501old(torch::Tensor input_1501old) {
    auto result_1501old = torch::empty_like(input_1501old);
    int total_1501old = input_1501old.numel();
    int grid_1501old = (total_1501old + BLOCK_1501old * UNROLL_1501old - 1) / (BLOCK_1501old * UNROLL_1501old);
    hipLaunchKernelGGL(kernel_1501old, dim3(grid_1501old), dim3(BLOCK_1501old), 0, 0,
                       input_1501old.data_ptr<float>(), result_1501old.data_ptr<float>(), total_1501old);
    return result_1501old;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1501old, "variant 1501old");
}
