// @HIP:602latin1name@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_602latin1name = 256;
constexpr int UNROLL_602latin1name = 2;

__global__ void kernel_602latin1name(const float* __restrict__ in_602latin1name, float* __restrict__ out_602latin1name, int count_602latin1name) {
    int base_602latin1name = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_602latin1name;
    #pragma unroll
    for (int step_602latin1name = 0; step_602latin1name < UNROLL_602latin1name; ++step_602latin1name) {
        int pos_602latin1name = base_602latin1name + step_602latin1name;
        if (pos_602latin1name < count_602latin1name) {
            float val_602latin1name = in_602latin1name[pos_602latin1name];
            out_602latin1name[pos_602latin1name] = sinf(val_602latin1name) * cosf(val_602latin1name);
        }
    }
}

torch::Tensor launch_602latin1name(torch::Tensor input_602latin1name) {
    auto result_602latin1name = torch::empty_like(input_602latin1name);
    int total_602latin1name = input_602latin1name.numel();
    int grid_602latin1name = (total_602latin1name + BLOCK_602latin1name * UNROLL_602latin1name - 1) / (BLOCK_602latin1name * UNROLL_602latin1name);
    hipLaunchKernelGGL(kernel_602latin1name, dim3(grid_602latin1name), dim3(BLOCK_602latin1name), 0, 0,
                       input_602latin1name.data_ptr<float>(), result_602latin1name.data_ptr<float>(), total_602latin1name);
    return result_602latin1name;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_602latin1name, "variant 602latin1name");
}
