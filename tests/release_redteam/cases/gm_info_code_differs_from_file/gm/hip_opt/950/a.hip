// @HIP:950file@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_950file = 256;
constexpr int UNROLL_950file = 1;

__global__ void kernel_950file(const float* __restrict__ in_950file, float* __restrict__ out_950file, int count_950file) {
    int base_950file = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_950file;
    #pragma unroll
    for (int step_950file = 0; step_950file < UNROLL_950file; ++step_950file) {
        int pos_950file = base_950file + step_950file;
        if (pos_950file < count_950file) {
            float val_950file = in_950file[pos_950file];
            out_950file[pos_950file] = val_950file * val_950file * 0.5f;
        }
    }
}

torch::Tensor launch_950file(torch::Tensor input_950file) {
    auto result_950file = torch::empty_like(input_950file);
    int total_950file = input_950file.numel();
    int grid_950file = (total_950file + BLOCK_950file * UNROLL_950file - 1) / (BLOCK_950file * UNROLL_950file);
    hipLaunchKernelGGL(kernel_950file, dim3(grid_950file), dim3(BLOCK_950file), 0, 0,
                       input_950file.data_ptr<float>(), result_950file.data_ptr<float>(), total_950file);
    return result_950file;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_950file, "variant 950file");
}
