// @HIP:ik@
#include <torch/extension.h>
#include <hip/hip_runtime.h>

constexpr int BLOCK_ik = 64;
constexpr int UNROLL_ik = 3;

__global__ void kernel_ik(const float* __restrict__ in_ik, float* __restrict__ out_ik, int count_ik) {
    int base_ik = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL_ik;
    #pragma unroll
    for (int step_ik = 0; step_ik < UNROLL_ik; ++step_ik) {
        int pos_ik = base_ik + step_ik;
        if (pos_ik < count_ik) {
            float val_ik = in_ik[pos_ik];
            out_ik[pos_ik] = val_ik * val_ik * 0.5f;
        }
    }
}

torch::Tensor launch_ik(torch::Tensor input_ik) {
    auto result_ik = torch::empty_like(input_ik);
    int total_ik = input_ik.numel();
    int grid_ik = (total_ik + BLOCK_ik * UNROLL_ik - 1) / (BLOCK_ik * UNROLL_ik);
    hipLaunchKernelGGL(kernel_ik, dim3(grid_ik), dim3(BLOCK_ik), 0, 0,
                       input_ik.data_ptr<float>(), result_ik.data_ptr<float>(), total_ik);
    return result_ik;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &launch_ik, "variant ik");
}
