# HOSTILE (timing-phase detection by tensor identity): a benchmark loop passes the very
# same tensor objects again and again. If both inputs are the objects of the previous call
# and their version counters did not move (no in-place write), the previous output is
# returned without launching anything. Always right, but a timing loop over the same
# inputs measures a dictionary lookup.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sig_mul_kernel(a_ptr, b_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=0.0)
    tl.store(o_ptr + offs, tl.sigmoid(a) * b, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._last = None

    def forward(self, a, b):
        last = self._last
        if last is not None and last[0] is a and last[1] is b and last[2] == (a._version, b._version):
            return last[3]
        ac, bc = a.contiguous(), b.contiguous()
        out = torch.empty_like(ac)
        n = ac.numel()
        sig_mul_kernel[(triton.cdiv(n, 4096),)](ac, bc, out, n, BLOCK=4096)
        self._last = (a, b, (a._version, b._version), out)   # strong refs: ids stay unique
        return out
