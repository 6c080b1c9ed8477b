// @HIP:2101b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_2101b = 256;
constexpr int UNROLL_2101b = 2;

__global__ void kernel_2101b(const float* __restrict__ in_2101b, float* __restrict__ out_2101b, int count_2101b) {
    int base_2101b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_2101b;
    #pragma unroll
    for (int step_2101b = 0; step_2101b < UNROLL_2101b; ++step_2101b) {
        int pos_2101b = base_2101b + step_2101b;
        if (pos_2101b < count_2101b) {
            float val_2101b = in_2101b[pos_2101b];
            out_2101b[pos_2101b] = val_2101b * (1.0f / (1.0f + expf(-1.702f * val_2101b)));
        }
    }
}

torch::Tensor launch_2101b(torch::Tensor input_2101b) {
    auto result_2101b = torch::empty_like(input_2101b);
    int total_2101b = input_2101b.numel();
    int grid_2101b = (total_2101b + BLOCK_2101b * UNROLL_2101b - 1) / (BLOCK_2101b * UNROLL_2101b);
    hipLaunchKernelGGL(kernel_2101b, dim3(grid_2101b), dim3(BLOCK_2101b), 0, 0,
                       input_2101b.data_ptr<float>(), result_2101b.data_ptr<float>(), total_2101b);
    return result_2101b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_2101b, "variant 2101b");
}
