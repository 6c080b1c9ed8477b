// @HIP:id10@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_id10 = 512;
constexpr int UNROLL_id10 = 4;

__global__ void kernel_id10(const float* __restrict__ in_id10, float* __restrict__ out_id10, int count_id10) {
    int base_id10 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_id10;
    #pragma unroll
    for (int step_id10 = 0; step_id10 < UNROLL_id10; ++step_id10) {
        int pos_id10 = base_id10 + step_id10;
        if (pos_id10 < count_id10) {
            float val_id10 = in_id10[pos_id10];
            out_id10[pos_id10] = (val_id10 > 0.0f ? val_id10 : 0.01f * val_id10);
        }
    }
}

torch::Tensor launch_id10(torch::Tensor input_id10) {
    auto result_id10 = torch::empty_like(input_id10);
    int total_id10 = input_id10.numel();
    int grid_id10 = (total_id10 + BLOCK_id10 * UNROLL_id10 - 1) / (BLOCK_id10 * UNROLL_id10);
    hipLaunchKernelGGL(kernel_id10, dim3(grid_id10), dim3(BLOCK_id10), 0, 0,
                       input_id10.data_ptr<float>(), result_id10.data_ptr<float>(), total_id10);
    return result_id10;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_id10, "variant id10");
}
