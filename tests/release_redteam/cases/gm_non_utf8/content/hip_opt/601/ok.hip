// @HIP:601ok@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_601ok = 64;
constexpr int UNROLL_601ok = 3;

__global__ void kernel_601ok(const float* __restrict__ in_601ok, float* __restrict__ out_601ok, int count_601ok) {
    int base_601ok = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_601ok;
    #pragma unroll
    for (int step_601ok = 0; step_601ok < UNROLL_601ok; ++step_601ok) {
        int pos_601ok = base_601ok + step_601ok;
        if (pos_601ok < count_601ok) {
            float val_601ok = in_601ok[pos_601ok];
            out_601ok[pos_601ok] = val_601ok * val_601ok * 0.5f;
        }
    }
}

torch::Tensor launch_601ok(torch::Tensor input_601ok) {
    auto result_601ok = torch::empty_like(input_601ok);
    int total_601ok = input_601ok.numel();
    int grid_601ok = (total_601ok + BLOCK_601ok * UNROLL_601ok - 1) / (BLOCK_601ok * UNROLL_601ok);
    hipLaunchKernelGGL(kernel_601ok, dim3(grid_601ok), dim3(BLOCK_601ok), 0, 0,
                       input_601ok.data_ptr<float>(), result_601ok.data_ptr<float>(), total_601ok);
    return result_601ok;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_601ok, "variant 601ok");
}
