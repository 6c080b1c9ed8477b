#include <torch/extension.h>
#include <hip/hip_runtime.h>

// y = x @ W^T + b, one thread per output element (W is (out, in)).
__global__ void linear_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y,
                              int batch, int in_f, int out_f) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= batch || col >= out_f) return;
    float acc = b[col];
    for (int k = 0; k < in_f; ++k) acc += x[(int64_t)row * in_f + k] * w[(int64_t)col * in_f + k];
    y[(int64_t)row * out_f + col] = fmaxf(acc, 0.0f);
}

static void check_input(const torch::Tensor& t, const char* name) {
    TORCH_CHECK(t.scalar_type() == torch::kFloat, name, " must be float32");
}

torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    check_input(x, "x");
    check_input(weight, "weight");
    check_input(bias, "bias");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && x.size(1) == weight.size(1) &&
                bias.numel() == weight.size(0), "x (B,in), weight (out,in), bias (out)");
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto bc = bias.contiguous();
    const int batch = (int)xc.size(0), in_f = (int)xc.size(1), out_f = (int)wc.size(0);
    auto y = torch::empty({batch, out_f}, xc.options());
    if (batch == 0 || out_f == 0) return y;
    dim3 threads(16, 16);
    dim3 blocks((out_f + 15) / 16, (batch + 15) / 16);
    hipLaunchKernelGGL(linear_kernel, blocks, threads, 0, 0, xc.data_ptr<float>(), wc.data_ptr<float>(),
                       bc.data_ptr<float>(), y.data_ptr<float>(), batch, in_f, out_f);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &forward, "linear + relu");
}
