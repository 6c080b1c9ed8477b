// @HIP:1401b@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_1401b = 64;
constexpr int UNROLL_1401b = 4;

__global__ void kernel_1401b(const float* __restrict__ in_1401b, float* __restrict__ out_1401b, int count_1401b) {
    int base_1401b = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_1401b;
    #pragma unroll
    for (int step_1401b = 0; step_1401b < UNROLL_1401b; ++step_1401b) {
        int pos_1401b = base_1401b + step_1401b;
        if (pos_1401b < count_1401b) {
            float val_1401b = in_1401b[pos_1401b];
            out_1401b[pos_1401b] = val_1401b * (1.0f / (1.0f + expf(-1.702f * val_1401b)));
        }
    }
}

torch::Tensor launch_1401b(torch::Tensor input_1401b) {
    auto result_1401b = torch::empty_like(input_1401b);
    int total_1401b = input_1401b.numel();
    int grid_1401b = (total_1401b + BLOCK_1401b * UNROLL_1401b - 1) / (BLOCK_1401b * UNROLL_1401b);
    hipLaunchKernelGGL(kernel_1401b, dim3(grid_1401b), dim3(BLOCK_1401b), 0, 0,
                       input_1401b.data_ptr<float>(), result_1401b.data_ptr<float>(), total_1401b);
    return result_1401b;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_1401b, "variant 1401b");
}
