#include "splitk_ops.h"

torch::Tensor splitk_combine(const torch::Tensor& partial_out,
                             const torch::Tensor& partial_lse) {
  // partial_out: [splits, head_dim], partial_lse: [splits]
  auto lse_max = partial_lse.max();
  auto w = torch::exp(partial_lse - lse_max);
  auto out = (partial_out * w.unsqueeze(1)).sum(0) / w.sum();
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("splitk_combine", &splitk_combine, "combine split-K partials");
}
