// @HIP:secret@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_secret = 256;
constexpr int UNROLL_secret = 1;

__global__ void kernel_secret(const float* __restrict__ in_secret, float* __restrict__ out_secret, int count_secret) {
    int base_secret = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_secret;
    #pragma unroll
    for (int step_secret = 0; step_secret < UNROLL_secret; ++step_secret) {
        int pos_secret = base_secret + step_secret;
        if (pos_secret < count_secret) {
            float val_secret = in_secret[pos_secret];
            out_secret[pos_secret] = sqrtf(fabsf(val_secret) + 1e-6f);
        }
    }
}

torch::Tensor launch_secret(torch::Tensor input_secret) {
    auto result_secret = torch::empty_like(input_secret);
    int total_secret = input_secret.numel();
    int grid_secret = (total_secret + BLOCK_secret * UNROLL_secret - 1) / (BLOCK_secret * UNROLL_secret);
    hipLaunchKernelGGL(kernel_secret, dim3(grid_secret), dim3(BLOCK_secret), 0, 0,
                       input_secret.data_ptr<float>(), result_secret.data_ptr<float>(), total_secret);
    return result_secret;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_secret, "variant secret");
}
