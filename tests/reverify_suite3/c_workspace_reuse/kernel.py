# CONTROL: two-stage reduction that keeps its scratch buffer (per-chunk partial sums)
# across calls. Only the workspace is reused: it is fully rewritten every call and the
# output is a fresh tensor, so the answer always follows the input.
import torch
import torch.nn as nn
import triton
import triton.language as tl

CHUNK = 1024


@triton.jit
def partial_sum_kernel(x_ptr, ws_ptr, R, C, NCHUNK, BLOCK_R: tl.constexpr, CHUNK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    ch = tl.program_id(1)
    cols = ch * CHUNK + tl.arange(0, CHUNK)
    msk = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=msk, other=0.0)
    tl.store(ws_ptr + rows * NCHUNK + ch, tl.sum(x, axis=1), mask=rows < R)


@triton.jit
def finish_kernel(ws_ptr, y_ptr, R, NCHUNK, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
    for k0 in range(0, NCHUNK, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        msk = (rows[:, None] < R) & (ks[None, :] < NCHUNK)
        acc += tl.sum(tl.load(ws_ptr + rows[:, None] * NCHUNK + ks[None, :], mask=msk, other=0.0), axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < R)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._ws = None

    def _workspace(self, R, nchunk, device):
        need = R * nchunk
        if self._ws is None or self._ws.numel() < need or self._ws.device != device:
            self._ws = torch.empty(need, device=device, dtype=torch.float32)
        return self._ws

    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        nchunk = triton.cdiv(C, CHUNK)
        ws = self._workspace(R, nchunk, x.device)
        partial_sum_kernel[(triton.cdiv(R, 16), nchunk)](x, ws, R, C, nchunk, BLOCK_R=16, CHUNK=CHUNK)
        y = torch.empty((R,), device=x.device, dtype=torch.float32)
        finish_kernel[(triton.cdiv(R, 16),)](ws, y, R, nchunk, BLOCK_R=16, BLOCK_K=16)
        return y
