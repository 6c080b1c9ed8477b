// @HIP:602ok@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_602ok = 128;
constexpr int UNROLL_602ok = 1;

__global__ void kernel_602ok(const float* __restrict__ in_602ok, float* __restrict__ out_602ok, int count_602ok) {
    int base_602ok = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_602ok;
    #pragma unroll
    for (int step_602ok = 0; step_602ok < UNROLL_602ok; ++step_602ok) {
        int pos_602ok = base_602ok + step_602ok;
        if (pos_602ok < count_602ok) {
            float val_602ok = in_602ok[pos_602ok];
            out_602ok[pos_602ok] = fmaxf(val_602ok, 0.0f);
        }
    }
}

torch::Tensor launch_602ok(torch::Tensor input_602ok) {
    auto result_602ok = torch::empty_like(input_602ok);
    int total_602ok = input_602ok.numel();
    int grid_602ok = (total_602ok + BLOCK_602ok * UNROLL_602ok - 1) / (BLOCK_602ok * UNROLL_602ok);
    hipLaunchKernelGGL(kernel_602ok, dim3(grid_602ok), dim3(BLOCK_602ok), 0, 0,
                       input_602ok.data_ptr<float>(), result_602ok.data_ptr<float>(), total_602ok);
    return result_602ok;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_602ok, "variant 602ok");
}
