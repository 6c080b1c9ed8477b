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
    "hip_rl_data": "kvdata.builders.hip_rl:HipRlDataSource",          # the lab's rl_data*.json lists
    "hip_verl": "kvdata.builders.hip_rl:HipVerlSource",               # the lab's veRL parquet
    "v02_cudaagent": "kvdata.builders.release_v02:V02CudaAgentSource",  # v0.2 subset tables
    "v02_gpumode": "kvdata.builders.release_v02:V02GpuModeSource",
    "v02_hip2hip": "kvdata.builders.release_v02:V02Hip2HipSource",
    "v02_qa": "kvdata.builders.release_v02:V02QaSource",
    "v02_triton": "kvdata.builders.release_v02:V02TritonSource",
    "release": "kvdata.builders.release:ReleaseSource",               # a downloaded release: expands into the above
}


def source_class(kind: str):
    """The Source class registered under ``kind``."""
    try:
        target = SOURCES[kind]
    except KeyError:
        raise KeyError(f"unknown source kind {kind!r}; known kinds: {', '.join(sorted(SOURCES))}") from None
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
