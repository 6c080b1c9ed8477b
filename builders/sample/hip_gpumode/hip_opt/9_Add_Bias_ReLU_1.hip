#include <torch/extension.h>
#include <hip/hip_runtime.h>

// 2-D grid: blockIdx.y walks rows, so the channel index needs no division.
__global__ void bias_relu(const float* __restrict__ x, const float* __restrict__ bias,
                          float* __restrict__ y, int rows, int channels) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= channels) return;
    const float b = bias[c];
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const int64_t i = (int64_t)r * channels + c;
        y[i] = fmaxf(x[i] + b, 0.0f);
    }
}

static void check_input(const torch::Tensor& t, const char* name) {
    TORCH_CHECK(t.scalar_type() == torch::kFloat, name, " must be float32");
}

torch::Tensor forward(torch::Tensor x, torch::Tensor bias) {
    check_input(x, "x");
    check_input(bias, "bias");
    TORCH_CHECK(x.dim() == 2 && bias.numel() == x.size(1), "x must be (batch, channels), bias (channels)");
    auto xc = x.contiguous();
    auto bc = bias.contiguous();
    auto y = torch::empty_like(xc);
    const int rows = (int)xc.size(0), channels = (int)xc.size(1);
    if (rows == 0 || channels == 0) return y;
    dim3 threads(128);
    dim3 blocks((channels + 127) / 128, std::min(rows, 1024));
    hipLaunchKernelGGL(bias_relu, blocks, threads, 0, 0,
                       xc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(), rows, channels);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &forward, "bias add + relu");
}
