"""Translate a HIP torch extension to CUDA, for portability runs on NVIDIA GPUs.

The name mapping is not ours: PyTorch maintains CUDA→HIP tables in
``torch.utils.hipify.cuda_to_hip_mappings``; ``reverse_mapping()`` inverts them at run time
(so a torch upgrade brings new names with it). Where several CUDA names map to one HIP
name (``cudaMalloc``, ``cuMemAlloc`` → ``hipMalloc``) the runtime-API name wins.

What the tables cannot express is written here, each as its own small rewrite:

- ``hipLaunchKernelGGL(k, grid, block, shmem, stream, args...)`` → ``k<<<grid, block, shmem, stream>>>(args...)``
  (and ``HIP_KERNEL_NAME(k<...>)`` → ``k<...>``);
- ``HIP_DYNAMIC_SHARED(T, name)`` → ``extern __shared__ T name[]``;
- HIP's mask-less warp intrinsics (``__shfl_down(v, d)``, ``__ballot(p)``, ``__any``...) →
  CUDA's ``*_sync(0xffffffff, ...)`` (the mask-less forms are gone since CUDA 9 on sm_70+);
- the torch-on-ROCm spellings (``at::hip::``, ``getCurrentHIPStreamMasqueradingAsCUDA``,
  ``ATen/hip/HIPContext.h``) that torch's own hipify produces but its tables do not list.

Identifiers are replaced token-wise outside comments and string literals; includes are
rewritten by path. The translation is reported with ``issues``: AMD-only builtins (which
will not compile), wavefront-64 assumptions (a literal 64/63 lane count, a shuffle loop
starting at offset 32, 64-bit ballot masks — CUDA warps have 32 lanes, so such code can
compile and still be wrong), platform ``#if``s and ``hip*`` names left unmapped.
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

FULL_MASK = "0xffffffff"

# torch-on-ROCm names absent from torch's CUDA→HIP tables (torch's hipify derives them otherwise).
TORCH_HIP_IDENTIFIERS = {
    "getCurrentHIPStreamMasqueradingAsCUDA": "getCurrentCUDAStream",
    "getCurrentHIPStream": "getCurrentCUDAStream",
    "getDefaultHIPStreamMasqueradingAsCUDA": "getDefaultCUDAStream",
    "getDefaultHIPStream": "getDefaultCUDAStream",
    "HIPStreamMasqueradingAsCUDA": "CUDAStream",
    "HIPStream": "CUDAStream",
    "HIPGuardMasqueradingAsCUDA": "CUDAGuard",
    "OptionalHIPGuardMasqueradingAsCUDA": "OptionalCUDAGuard",
    "HIPGuard": "CUDAGuard",
    "OptionalHIPGuard": "OptionalCUDAGuard",
    "C10_HIP_KERNEL_LAUNCH_CHECK": "C10_CUDA_KERNEL_LAUNCH_CHECK",
    "C10_HIP_CHECK": "C10_CUDA_CHECK",
}
TORCH_HIP_NAMESPACES = {"at::hip::": "at::cuda::", "c10::hip::": "c10::cuda::"}
TORCH_HIP_INCLUDES = {
    "ATen/hip/HIPContext.h": "ATen/cuda/CUDAContext.h",
    "ATen/hip/impl/HIPStreamMasqueradingAsCUDA.h": "c10/cuda/CUDAStream.h",
    "ATen/hip/impl/HIPGuardImplMasqueradingAsCUDA.h": "c10/cuda/CUDAGuard.h",
    "hip/hip_runtime.h": "cuda_runtime.h",
}
# HIP's mask-less warp intrinsics → CUDA's *_sync forms, which take a lane mask first.
WARP_INTRINSICS = {"__shfl": "__shfl_sync", "__shfl_up": "__shfl_up_sync", "__shfl_down": "__shfl_down_sync",
                   "__shfl_xor": "__shfl_xor_sync", "__any": "__any_sync", "__all": "__all_sync",
                   "__ballot": "__ballot_sync"}
# Spellings that only exist for AMD targets: the translation cannot compile with them.
AMD_ONLY = re.compile(r"\b(__builtin_amdgcn_\w+|__AMDGCN_WAVEFRONT_SIZE\w*|__gfx\d+\w*__|__lds\w*|"
                      r"__builtin_nontemporal_\w+|amd_mixed_dot|__ockl_\w+|__ocml_\w+)\b")
# Wavefront-64 assumptions: each (pattern, why) compiles on NVIDIA and may compute the wrong thing.
WAVE64_PATTERNS = (
    (re.compile(r"\b\w*(?:warp|wave|wf)\w*size\w*\s*(?:=|\()\s*64\b|#define\s+\w*(?:WARP|WAVE)\w*\s+64\b", re.I),
     "a warp/wavefront size of 64 is hard-coded; NVIDIA warps have 32 lanes"),
    (re.compile(r"(?:threadIdx\.x|lane\w*|tid)\s*(?:%\s*64|&\s*63|>>\s*6)\b", re.I),
     "lane index computed modulo 64"),
    (re.compile(r"\b(?:offset|delta|mask|stride|s|i)\s*=\s*32\s*;[^;]*;[^)]*(?:>>=\s*1|/=\s*2)"),
     "shuffle reduction starting at offset 32 (a 64-lane wavefront); on 32-lane warps it double-counts"),
    (re.compile(r"__ballot\s*\("), "__ballot returns a 64-bit lane mask on AMD, 32-bit on NVIDIA"),
)
PLATFORM_IF = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif)\b.*\b(__HIP_PLATFORM_\w+__|__HIP_DEVICE_COMPILE__|"
                         r"USE_ROCM|__HIPCC__)", re.M)
TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[A-Za-z_]\w*|\s+|.', re.S)
# Built-in and <cstdint> types: torch's tables map a few CUDA typedefs onto them (nvtxRangeId_t -> int);
# reversing those would rewrite every ``int`` in the sample.
PLAIN_TYPES = re.compile(r"(?:bool|char|short|int|long|unsigned|signed|float|double|void|size_t|u?int\d+_t)")
INCLUDE = re.compile(r'^(\s*#\s*include\s*)([<"])([^>"]+)([>"])', re.M)


@dataclass
class TranslationIssue:
    kind: str        # "amd-only" (will not compile) | "wave64" | "platform-if" | "unmapped"
    line: int
    message: str


@dataclass
class Translation:
    source: str                                   # the CUDA translation unit
    issues: list[TranslationIssue] = field(default_factory=list)
    replacements: Counter = field(default_factory=Counter)   # "hipMalloc->cudaMalloc": count

    @property
    def blocking(self) -> list[TranslationIssue]:
        """Issues that make the translation not compile for NVIDIA (AMD-only builtins)."""
        return [i for i in self.issues if i.kind == "amd-only"]

    def report(self) -> str:
        lines = [f"hipify: {sum(self.replacements.values())} replacements, {len(self.issues)} issues"]
        lines += [f"  line {i.line}: [{i.kind}] {i.message}" for i in self.issues]
        return "\n".join(lines)


@dataclass(frozen=True)
class ReverseMapping:
    identifiers: dict            # hipMalloc -> cudaMalloc
    namespaces: dict             # "hipcub::" -> "cub::"
    includes: dict               # "hip/hip_runtime.h" -> "cuda_runtime.h"


def _cuda_name_rank(name: str) -> int:
    """Lower is preferred when several CUDA names share one HIP name: runtime API over driver API."""
    if name.startswith("cuda"):
        return 0
    if re.match(r"^(cu[A-Z]|CU[a-zA-Z]|CUDA_)", name):
        return 2
    return 1


@functools.lru_cache(maxsize=1)
def reverse_mapping() -> ReverseMapping:
    """Invert PyTorch's CUDA→HIP tables (identifier, type, include, special and c10 maps)."""
    from torch.utils.hipify import cuda_to_hip_mappings as tables

    sources = [getattr(tables, n) for n in ("CUDA_IDENTIFIER_MAP", "CUDA_TYPE_NAME_MAP", "CUDA_SPECIAL_MAP",
                                             "CUDA_INCLUDE_MAP", "C10_MAPPINGS") if hasattr(tables, n)]
    candidates: dict[str, list[tuple[int, int, str]]] = {}
    order = 0
    for table in sources:
        for cuda_name, value in table.items():
            hip_name = value[0] if isinstance(value, tuple) else value   # older torch: (name, CONV, API)
            cuda_name, hip_name = cuda_name.strip(), str(hip_name).strip()
            if cuda_name == hip_name or "hip" in cuda_name.lower() or cuda_name.startswith("include"):
                continue   # identity, or an entry that maps the other way round
            candidates.setdefault(hip_name, []).append((_cuda_name_rank(cuda_name), order, cuda_name))
            order += 1
    identifiers, namespaces, includes = {}, {}, {}
    for hip_name, options in candidates.items():
        cuda_name = min(options)[2]
        if PLAIN_TYPES.fullmatch(hip_name):
            continue
        if re.fullmatch(r"[A-Za-z_]\w*", hip_name):
            identifiers[hip_name] = cuda_name
        elif re.fullmatch(r"[A-Za-z_]\w*::", hip_name):
            namespaces[hip_name] = cuda_name
        elif "/" in hip_name or hip_name.endswith((".h", ".hpp", ".cuh")):
            includes[hip_name] = cuda_name
    for hip_name, cuda_name in TORCH_HIP_IDENTIFIERS.items():
        identifiers.setdefault(hip_name, cuda_name)
    namespaces.update(TORCH_HIP_NAMESPACES)
    for hip_path, cuda_path in TORCH_HIP_INCLUDES.items():
        includes.setdefault(hip_path, cuda_path)
    return ReverseMapping(identifiers, namespaces, includes)


# ---------------------------------------------------------------------------- call parsing
def _call_args(text: str, open_paren: int) -> tuple[list[str], int]:
    """Split the argument list starting at ``text[open_paren] == '('`` on top-level commas.

    Returns (args, index just past the closing paren). Nesting counts (), [] and {};
    template angle brackets do not nest (``a < b`` is ambiguous), which is why HIP code
    wraps template kernels in ``HIP_KERNEL_NAME(...)`` — handled by the caller.
    """
    depth, args, start, i = 0, [], open_paren + 1, open_paren
    while i < len(text):
        ch = text[i]
        if ch in "\"'":   # skip a literal
            j = i + 1
            while j < len(text) and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i])
                return [a.strip() for a in args], i + 1
        elif ch == "," and depth == 1:
            args.append(text[start:i])
            start = i + 1
        i += 1
    raise ValueError(f"unbalanced parentheses in call starting at offset {open_paren}")


def _rewrite_calls(text: str, name: str, rewrite) -> tuple[str, int]:
    """Replace each ``name(...)`` call by ``rewrite(args)``; returns (text, count)."""
    pattern = re.compile(rf"\b{re.escape(name)}\s*\(")
    out, pos, count = [], 0, 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            break
        args, end = _call_args(text, m.end() - 1)
        out.append(text[pos:m.start()])
        out.append(rewrite(args))
        pos, count = end, count + 1
    out.append(text[pos:])
    return "".join(out), count


def _launch(args: list[str]) -> str:
    if len(args) < 5:
        raise ValueError(f"hipLaunchKernelGGL needs kernel, grid, block, shared memory, stream; got {args}")
    kernel, grid, block, shmem, stream, *kernel_args = args
    return f"{kernel}<<<{grid}, {block}, {shmem}, {stream}>>>({', '.join(kernel_args)})"


# ---------------------------------------------------------------------------- the steps
def _rewrite_includes(text: str, mapping: ReverseMapping, counts: Counter) -> str:
    def sub(m: re.Match) -> str:
        cuda = mapping.includes.get(m.group(3))
        if cuda is None:
            return m.group(0)
        counts[f"{m.group(3)}->{cuda}"] += 1
        return f"{m.group(1)}{m.group(2)}{cuda}{m.group(4)}"
    return INCLUDE.sub(sub, text)


def _rewrite_launches(text: str, counts: Counter) -> str:
    # Launches first: HIP_KERNEL_NAME(k<a, b>) keeps a template's commas inside parentheses.
    text, n = _rewrite_calls(text, "hipLaunchKernelGGL", _launch)
    counts["hipLaunchKernelGGL->k<<<...>>>"] += n
    text, n = _rewrite_calls(text, "HIP_KERNEL_NAME", lambda a: ", ".join(a))
    counts["HIP_KERNEL_NAME->(removed)"] += n
    text, n = _rewrite_calls(text, "HIP_DYNAMIC_SHARED", lambda a: f"extern __shared__ {a[0]} {a[1]}[]")
    counts["HIP_DYNAMIC_SHARED->extern __shared__"] += n
    return text


def _rewrite_warp_intrinsics(text: str, counts: Counter) -> str:
    for hip_name, cuda_name in WARP_INTRINSICS.items():
        text, n = _rewrite_calls(text, hip_name, lambda a, c=cuda_name: f"{c}({', '.join([FULL_MASK, *a])})")
        if n:
            counts[f"{hip_name}->{cuda_name}"] += n
    return text


def _map_tokens(text: str, mapping: ReverseMapping, counts: Counter) -> str:
    """Map identifiers and ``ns::`` prefixes in code, leaving comments and literals alone."""
    out = []
    tokens = TOKEN.findall(text)
    for i, tok in enumerate(tokens):
        if tok[:1].isalpha() or tok[:1] == "_":
            cuda = mapping.identifiers.get(tok)
            if cuda is not None:
                counts[f"{tok}->{cuda}"] += 1
                tok = cuda
        out.append(tok)
    code = "".join(out)
    for hip_ns, cuda_ns in sorted(mapping.namespaces.items(), key=lambda kv: -len(kv[0])):
        code, n = re.subn(rf"(?<![\w:]){re.escape(hip_ns)}", cuda_ns, code)
        if n:
            counts[f"{hip_ns}->{cuda_ns}"] += n
    return code


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def find_issues(hip_source: str, cuda_source: str) -> list[TranslationIssue]:
    """What may keep the translation from compiling, or from computing the same thing."""
    issues = [TranslationIssue("amd-only", _line_of(hip_source, m.start()),
                               f"{m.group(1)} exists only for AMD targets")
              for m in AMD_ONLY.finditer(hip_source)]
    for pattern, why in WAVE64_PATTERNS:
        issues += [TranslationIssue("wave64", _line_of(hip_source, m.start()), why)
                   for m in pattern.finditer(hip_source)]
    issues += [TranslationIssue("platform-if", _line_of(hip_source, m.start()),
                                f"platform conditional on {m.group(1)}: the CUDA build takes the other branch")
               for m in PLATFORM_IF.finditer(hip_source)]
    code_only = "".join(t for t in TOKEN.findall(cuda_source) if not t.startswith(("//", "/*", '"', "'")))
    for name in sorted(set(re.findall(r"\bhip[A-Z]\w*", code_only))):
        issues.append(TranslationIssue("unmapped", _line_of(cuda_source, cuda_source.find(name)),
                                       f"{name} has no CUDA counterpart in torch's hipify tables"))
    return sorted(issues, key=lambda i: (i.line, i.kind))


def translate(hip_source: str, mapping: Optional[ReverseMapping] = None) -> Translation:
    """HIP source → CUDA source, with what was replaced and what may not carry over."""
    mapping = mapping or reverse_mapping()
    counts: Counter = Counter()
    text = _rewrite_includes(hip_source, mapping, counts)
    text = _rewrite_launches(text, counts)
    text = _rewrite_warp_intrinsics(text, counts)
    text = _map_tokens(text, mapping, counts)
    counts = Counter({k: v for k, v in counts.items() if v})
    return Translation(text, find_issues(hip_source, text), counts)
