# reference: tanh_mul
# gpu-only: the interpreter has no driver to benchmark autotuner configs with
"""Control: an autotuned Triton kernel (the autotuner benchmarks, with torch ops, on the first call only)."""


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def tanh_mul_tuned(x_ptr, w_ptr, o_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    w = tl.load(w_ptr + offs % cols, mask=m)
    tl.store(o_ptr + offs, (2.0 * tl.sigmoid(2.0 * x) - 1.0) * w, mask=m)


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        tanh_mul_tuned[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, self.w, out, x.numel(), x.shape[-1])
        return out
