"""Builders: one Source per raw upstream layout (see ``base.Source``).

``SOURCES`` maps the KIND of ``kvdata build --source KIND=PATH`` to its class,
imported lazily so that listing kinds costs nothing.
"""
from __future__ import annotations

import importlib

SOURCES: dict[str, str] = {
    "hip_gpumode": "kvdata.builders.hip_gpumode:HipGpuModeSource",
    "hip2hip": "kvdata.builders.hip2hip:Hip2HipSource",
    "hip_cudaagent": "kvdata.builders.hip_cudaagent:HipCudaAgentSource",
    "triton_github": "kvdata.builders.triton:TritonGithubSource",        # TritonBench-G JSON form
    "triton_kernelbook": "kvdata.builders.triton:TritonKernelBookSource",  # KernelBook parquet form
    "triton_kernelbench": "kvdata.builders.triton:TritonKernelBenchSource",  # Model + ModelNew agent outputs
    "triton_table": "kvdata.builders.triton:TritonTableSource",          # any JSONL/parquet + column mapping
    "qa_rocm": "kvdata.builders.qa_rocm:QaRocmSource",
}


def source_class(kind: str):
    """The Source class registered under ``kind``."""
    try:
        target = SOURCES[kind]
    except KeyError:
        raise KeyError(f"unknown source kind {kind!r}; known kinds: {', '.join(sorted(SOURCES))}") from None
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
