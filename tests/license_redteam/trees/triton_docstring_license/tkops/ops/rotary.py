"""Rotary position embedding (RoPE) applied in place with a Triton kernel.

The kernel rotates pairs of channels of ``x`` by position-dependent angles
taken from the ``cos``/``sin`` caches. It supports interleaved (GPT-J style)
and non-interleaved (GPT-NeoX style) layouts and variable-length batches
through ``cu_seqlens``.

Provenance
----------
This module is adapted from the rotary kernel in the flash-attention
repository. Its original notice is reproduced here as required:

    Copyright (c) 2023, Tri Dao.

    Redistribution and use in source and binary forms, with or without
    modification, are permitted provided that the following conditions are met:

    * Redistributions of source code must retain the above copyright notice, this
      list of conditions and the following disclaimer.

    * Redistributions in binary form must reproduce the above copyright notice,
      this list of conditions and the following disclaimer in the documentation
      and/or other materials provided with the distribution.

    * Neither the name of the copyright holder nor the names of its
      contributors may be used to endorse or promote products derived from
      this software without specific prior written permission.

    THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
    AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
    IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
    DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
    FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
    DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
    SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
    CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
    OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
    OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.

Usage
-----
>>> apply_rotary(x, cos, sin, interleaved=False)
"""

import triton
import triton.language as tl


@triton.jit
def rotary_kernel(X, COS, SIN, seqlen, rotary_dim, stride_xs, BLOCK_K: tl.constexpr):
    pid_s = tl.program_id(0)
    half = rotary_dim // 2
    rk = tl.arange(0, BLOCK_K)
    mask = rk < half
    cos = tl.load(COS + pid_s * half + rk, mask=mask, other=1.0)
    sin = tl.load(SIN + pid_s * half + rk, mask=mask, other=0.0)
    x0 = tl.load(X + pid_s * stride_xs + rk, mask=mask, other=0.0)
    x1 = tl.load(X + pid_s * stride_xs + half + rk, mask=mask, other=0.0)
    tl.store(X + pid_s * stride_xs + rk, x0 * cos - x1 * sin, mask=mask)
    tl.store(X + pid_s * stride_xs + half + rk, x0 * sin + x1 * cos, mask=mask)
