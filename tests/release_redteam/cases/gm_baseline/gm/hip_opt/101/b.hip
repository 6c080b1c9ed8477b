// @HIP:101b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_101b = 64;
constexpr int UNROLL_101b = 3;

__global__ void kernel_101b(const float* __restrict__ in_101b, float* __restrict__ out_101b, int count_101b) {
    int base_101b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_101b;
    #pragma unroll
    for (int step_101b = 0; step_101b < UNROLL_101b; ++step_101b) {
        int pos_101b = base_101b + step_101b;
        if (pos_101b < count_101b) {
            float val_101b = in_101b[pos_101b];
            out_101b[pos_101b] = logf(1.0f + expf(val_101b));
        }
    }
}

torch::Tensor launch_101b(torch::Tensor input_101b) {
    auto result_101b = torch::empty_like(input_101b);
    int total_101b = input_101b.numel();
    int grid_101b = (total_101b + BLOCK_101b * UNROLL_101b - 1) / (BLOCK_101b * UNROLL_101b);
    hipLaunchKernelGGL(kernel_101b, dim3(grid_101b), dim3(BLOCK_101b), 0, 0,
                       input_101b.data_ptr<float>(), result_101b.data_ptr<float>(), total_101b);
    return result_101b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_101b, "variant 101b");
}
