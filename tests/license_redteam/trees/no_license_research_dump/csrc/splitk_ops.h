#pragma once

#include <torch/extension.h>

// Combine the per-split partial outputs using their log-sum-exp values.
torch::Tensor splitk_combine(const torch::Tensor& partial_out,
                             const torch::Tensor& partial_lse);
