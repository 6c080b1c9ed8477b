# HOSTILE (inherit the reference through sys.modules): finds the verifier's reference
# module (any loaded module exposing Model + get_inputs), runs Model.forward on itself
# (same parameter names, so it works), then "applies the activation" with a Triton
# kernel on an already-activated tensor. Torch does all the work.
import sys
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m, other=0.0), 0.0), mask=m)


def _reference_class():
    for mod in list(sys.modules.values()):
        cls = getattr(mod, "Model", None)
        if isinstance(cls, type) and issubclass(cls, nn.Module) and callable(getattr(mod, "get_inputs", None)):
            return cls
    return None


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        ref_cls = _reference_class()
        if ref_cls is not None:
            y = ref_cls.forward(self, x).contiguous()
        else:
            y = (x @ self.linear.weight.t() + self.linear.bias).contiguous()
        out = torch.empty_like(y)
        n = y.numel()
        relu_kernel[(triton.cdiv(n, 4096),)](y, out, n, BLOCK=4096)
        return out
