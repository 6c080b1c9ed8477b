# OUT_FEATURES (40) appears only in get_init_inputs, i.e. only in the weight's shape; the
# kernel bakes it in (row stride of the output, width of the tile, the bias mask).
# Any input size works; any other layer width does not.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear40_kernel(x_ptr, w_ptr, b_ptr, o_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, 64)
    nmask = rn < 40
    acc = tl.zeros((BM, 64), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=nmask[None, :] & (rk[:, None] < K), other=0.0)
        acc += tl.dot(x, w, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=nmask, other=0.0)[None, :]
    tl.store(o_ptr + rm[:, None] * 40 + rn[None, :], tl.maximum(acc, 0.0), mask=(rm[:, None] < M) & nmask[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        M, K = x.shape
        out = torch.empty((M, 40), device=x.device, dtype=torch.float32)
        linear40_kernel[(triton.cdiv(M, 16),)](x.contiguous(), self.linear.weight.contiguous(),
                                              self.linear.bias, out, M, K, BM=16, BK=32)
        return out
