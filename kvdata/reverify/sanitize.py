"""Memory safety on NVIDIA: one seed of a sample run under ``compute-sanitizer --tool memcheck``.

Why: an out-of-bounds write can pass every output comparison. On a GPU it lands in slack the
allocator keeps around the output (PyTorch's caching allocator rounds blocks up), so the
answer is right and the kernel is still wrong: on AMD hardware, or at another size, it
corrupts memory. memcheck sees it only when each tensor is its own allocation, so the run
sets ``PYTORCH_NO_CUDA_MEMORY_CACHING=1``.

The run is a process of its own (the sanitizer instruments the whole process), inside the
same sandbox as every sample run: scrubbed environment, limits, writes confined to its
scratch dir and the sample's own compile cache. It builds the reference case of one seed
(weights, inputs), builds the candidate with the backend, loads the weights and calls it once.
Any memcheck error is the failing flag ``out_of_bounds`` (``checks.check_memory_safe``).

    python -I -m kvdata.reverify.sanitize JOB_DIR      # inside the sandbox, under compute-sanitizer
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

SANITIZER_EXIT = 99                     # compute-sanitizer's exit status when it found errors
_ERRORS = re.compile(r"ERROR SUMMARY:\s*(\d+)\s+error")
_FINDING = re.compile(r"^=+\s+(Invalid __global__ .*|Out-of-range .*|Misaligned .*|Address .* is out of bounds.*)$",
                      re.M)


@dataclass(frozen=True)
class SanitizerReport:
    """What one memcheck run found."""

    ran: bool                     # the sanitizer ran the sample to the end
    errors: int = 0               # memcheck's error count
    findings: tuple = ()          # its first reported errors, e.g. "Invalid __global__ write of size 4 bytes"
    reason: str = ""              # why it did not run, or how it ended

    def summary(self) -> str:
        if not self.ran:
            return f"not run: {self.reason}"
        if not self.errors:
            return "memcheck: 0 errors"
        return f"memcheck: {self.errors} errors: " + "; ".join(self.findings[:3])


def find_sanitizer() -> Optional[str]:
    """``compute-sanitizer`` on PATH or in the CUDA toolkit's usual places."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "compute-sanitizer"), os.X_OK):
            return os.path.join(root, "bin", "compute-sanitizer")
    return None


def sanitizer_argv(sanitizer: str, job_dir: Path) -> list[str]:
    return [sanitizer, "--tool", "memcheck", "--leak-check", "no", "--print-limit", "20",
            "--error-exitcode", str(SANITIZER_EXIT), sys.executable, "-I", "-m", "kvdata.reverify.sanitize",
            str(job_dir)]


def parse_report(returncode: Optional[int], output: str, timed_out: bool = False) -> SanitizerReport:
    """The memcheck report from the sanitized process's exit status and output."""
    if timed_out:
        return SanitizerReport(False, reason="timed out")
    match = _ERRORS.search(output)
    findings = tuple(dict.fromkeys(m.strip() for m in _FINDING.findall(output)))
    if match is None:
        return SanitizerReport(False, reason=f"no memcheck summary (exit {returncode}): {output.strip()[-300:]}")
    errors = int(match.group(1))
    if errors == 0 and returncode not in (0, SANITIZER_EXIT):
        return SanitizerReport(False, reason=f"the sample failed under the sanitizer (exit {returncode})")
    return SanitizerReport(True, errors, findings)


def write_job(job_dir: Path, sample_job: dict, seed: int, backend: str, cache_dir: Path) -> None:
    """The sanitized run's ``protocol.Job``: one seed, no bait, no timing, no knockout."""
    from kvdata.reverify.harness import JOB_FILE
    from kvdata.reverify.protocol import Job

    job_dir.mkdir(parents=True, exist_ok=True)
    job = Job(sample=sample_job, seeds=[seed], bait_seeds=[], decoy_seed=seed, timing_seed=seed, device="cuda",
              backend=backend, cache_dir=str(cache_dir), knockout=False)
    (job_dir / JOB_FILE).write_text(json.dumps(job.to_json()))


# ----------------------------------------------------------------------------- inside the sandbox
def run_one_call(job_dir: Path) -> None:
    """Reference case of one seed, the candidate built and called once on it (no comparison)."""
    import torch

    from kvdata.reverify.backends import create_backend
    from kvdata.reverify.harness import Meta, build_reference_case, load_source_module, make_candidate_module

    from kvdata.reverify.harness import JOB_FILE
    from kvdata.reverify.protocol import Job

    job = Job.from_json(json.loads((job_dir / JOB_FILE).read_text()))
    torch.cuda.set_device(0)
    reference = load_source_module(job.sample["pytorch_code"], job_dir / "reference.py", "kv_reference")
    case = build_reference_case(reference, job.seeds[0], job.device)
    del case["outputs"], case["model"]
    candidate = create_backend(job.backend).build(dict(job.sample), job_dir, Path(job.cache_dir))
    model = make_candidate_module(candidate, case, "cuda", Meta(job_dir))
    with torch.no_grad():
        model(*case["inputs"])
    torch.cuda.synchronize()


if __name__ == "__main__":
    run_one_call(Path(sys.argv[1]))
