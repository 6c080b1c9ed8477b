#include <torch/extension.h>
#include <hip/hip_runtime.h>

#define TILE 16

// y = x @ W^T + b: tiles of x rows and W rows (W is (out, in)) staged in shared memory.
__global__ void linear_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y,
                              int batch, int in_f, int out_f) {
    __shared__ float xs[TILE][TILE];
    __shared__ float ws[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int wrow = blockIdx.x * TILE + threadIdx.y;
    float acc = 0.0f;
    for (int t = 0; t < in_f; t += TILE) {
        const int k = t + threadIdx.x;
        xs[threadIdx.y][threadIdx.x] = (row < batch && k < in_f) ? x[(int64_t)row * in_f + k] : 0.0f;
        ws[threadIdx.y][threadIdx.x] = (wrow < out_f && k < in_f) ? w[(int64_t)wrow * in_f + k] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk) acc += xs[threadIdx.y][kk] * ws[threadIdx.x][kk];
        __syncthreads();
    }
    if (row < batch && col < out_f) {
        acc += b[col];
        y[(int64_t)row * out_f + col] = fmaxf(acc, 0.0f);
    }
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
    dim3 threads(TILE, TILE);
    dim3 blocks((out_f + TILE - 1) / TILE, (batch + TILE - 1) / TILE);
    hipLaunchKernelGGL(linear_kernel, blocks, threads, 0, 0, xc.data_ptr<float>(), wc.data_ptr<float>(),
                       bc.data_ptr<float>(), y.data_ptr<float>(), batch, in_f, out_f);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &forward, "linear + relu");
}
