"""The code that runs inside the sandboxed worker for one sample (a child forked from the zygote).

``run_job(job_dir, ref_fd)`` does, in order:

1. **reference** — import ``pytorch_code``, and for every seed build ``Model`` and fresh
   inputs under that seed, run it, and write the outputs (with the inputs, for the
   parent's unchanged-inputs check: their sha256 fingerprints) to ``ref_fd``, a pipe to
   the zygote, as a raw tensor blob (never a pickle). The pipe is
   closed and the reference module, its outputs and the allocator's cache are dropped
   *before any candidate code is imported*: the candidate never holds the trusted answer.
2. **compile** — ``backend.build`` turns ``kernel_code`` into a ``Candidate``.
3. **run** — round A: every seed (allocator poisoned before each call); the reference
   again, in-process, as bait; round B: every seed again. Outputs and post-call inputs
   go to ``cand_out.blob`` (raw bytes, see ``tensor_blob``) as each call returns; launches
   per call, aliasing and errors to ``meta.json``.
4. **time** (GPU only) — warm-up, L2 flush, CUDA/HIP events, median of repeats, for the
   reference and the candidate.

This process decides nothing: the parent compares, flags and assigns the status from
the serialized tensors alone, never from this process's exit code or stdout.
"""
from __future__ import annotations

import gc
import importlib.util
import json
import os
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Optional

JOB_FILE = "job.json"
META_FILE = "meta.json"
CAND_FILE = "cand_out.blob"


# ----------------------------------------------------------------------------- helpers
def load_source_module(code: str, path: Path, name: str):
    """Import ``code`` from a real file (Triton and ``inspect`` need the source on disk)."""
    path = Path(path)
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def forget_module(name: str) -> None:
    sys.modules.pop(name, None)
    gc.collect()


def flatten_outputs(out: Any) -> list:
    """A forward's result as a flat list of tensors (numbers become 0-d tensors)."""
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        flat = []
        for o in out:
            flat.extend(flatten_outputs(o))
        return flat
    if isinstance(out, (int, float, bool, complex)):
        return [torch.tensor(out)]
    raise TypeError(f"forward returned {type(out).__name__}, expected tensors")


def to_device(x: Any, device: str):
    import torch

    if isinstance(x, torch.Tensor):
        return x.to(device)
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(v, device) for v in x)
    return x


def clone_inputs(inputs: list) -> list:
    import torch

    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def seed_everything(seed: int) -> None:
    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy as np

        np.random.seed(seed % 2**32)
    except ImportError:
        pass


def synchronize(device: str) -> None:
    if device != "cpu":
        import torch

        torch.cuda.synchronize()


class Meta:
    """What the worker reports besides tensors; rewritten at every stage so a kill mid-stage
    still tells the parent where it died."""

    def __init__(self, job_dir: Path):
        self.path = job_dir / META_FILE
        self.data: dict[str, Any] = {"stage": "start", "error": None, "stage_s": {}}
        self._t = time.monotonic()

    def stage(self, name: str) -> None:
        now = time.monotonic()
        self.data["stage_s"][self.data["stage"]] = round(now - self._t, 4)
        self._t = now
        self.data["stage"] = name
        self.write()

    def fail(self, exc: BaseException) -> None:
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        self.data["error"] = {"type": type(exc).__name__, "message": str(exc)[:2000],
                              "traceback": "".join(tb)[-4000:]}
        self.write()

    def write(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, default=str))
        os.replace(tmp, self.path)


# ----------------------------------------------------------------------------- reference
def build_reference_case(module, seed: int, device: str) -> dict:
    """Model, constructor args and inputs of one seed, all drawn under that seed."""
    import torch

    seed_everything(seed)
    init_inputs = list(module.get_init_inputs()) if hasattr(module, "get_init_inputs") else []
    model = module.Model(*init_inputs).to(device).eval()
    inputs = to_device(list(module.get_inputs()), device)
    with torch.no_grad():
        outputs = flatten_outputs(model(*clone_inputs(inputs)))
    synchronize(device)
    return {"seed": seed, "init_inputs": init_inputs, "state_dict": model.state_dict(),
            "inputs": inputs, "outputs": outputs, "model": model}


def send_reference(ref_fd: int, cases: list[dict]) -> None:
    """Ship reference outputs (and fingerprints of the inputs) out of the process through the pipe, then close it.

    The outputs are written straight from tensor memory; the inputs only as fingerprints
    (dtype, shape, sha256): the parent needs them only to tell whether the candidate
    changed them, and it hashes the post-call inputs itself.
    """
    from kvdata.reverify import tensor_blob

    try:
        tensor_blob.dump({"outputs": [c["outputs"] for c in cases],
                          "inputs": [tensor_blob.fingerprint(list(c["inputs"])) for c in cases],
                          "seeds": [c["seed"] for c in cases]}, tensor_blob.fd_sink(ref_fd))
    finally:
        os.close(ref_fd)


# ----------------------------------------------------------------------------- timing
def time_gpu(fn: Callable[[], Any], timing: dict, device: str) -> Optional[float]:
    """Median milliseconds of ``fn`` over repeats, each after an L2 flush, measured with device events."""
    import torch

    flush = torch.empty(int(timing["flush_mb"]) * 2**20 // 4, dtype=torch.int32, device=device)
    with torch.no_grad():
        for _ in range(int(timing["warmup"])):
            fn()
        torch.cuda.synchronize()
        times, spent = [], time.monotonic()
        for _ in range(int(timing["reps"])):
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
            if time.monotonic() - spent > float(timing["max_seconds"]):
                break
    del flush
    times.sort()
    return times[len(times) // 2] if times else None


# ----------------------------------------------------------------------------- the job
def run_job(job_dir: Path, ref_fd: int) -> None:
    """Everything one sample needs inside the worker; see the module docstring."""
    job_dir = Path(job_dir)
    job = json.loads((job_dir / JOB_FILE).read_text())
    (job_dir / JOB_FILE).unlink()          # the reference's code is not left lying around for the candidate
    meta = Meta(job_dir)
    device = job["device"]
    if device != "cpu":
        import torch

        torch.cuda.set_device(0)

    from kvdata.reverify.backends import create_backend

    backend = create_backend(job["backend"])
    if backend.compile_only:
        os.close(ref_fd)
        _compile_only(backend, job, job_dir, meta)
        return

    # 1. reference, before any candidate code exists in this process
    meta.stage("reference")
    try:
        ref_module = load_source_module(job["sample"]["pytorch_code"], job_dir / "reference.py", "kv_reference")
        (job_dir / "reference.py").unlink()
        cases = [build_reference_case(ref_module, s, device) for s in job["seeds"]]
        out_specs = [(tuple(t.shape), t.dtype) for t in cases[0]["outputs"]]
        send_reference(ref_fd, cases)
    except BaseException as e:  # noqa: BLE001 - any failure of the reference is reported, not raised
        meta.fail(e)
        return
    timing = job.get("timing") if device != "cpu" else None
    if timing:
        model0, inputs0 = cases[0]["model"], cases[0]["inputs"]
        meta.data["ref_ms"] = time_gpu(lambda: model0(*inputs0), timing, device)
        del model0, inputs0
    for c in cases:
        del c["outputs"], c["model"]
    forget_module("kv_reference")
    del ref_module
    if device != "cpu":
        import torch

        torch.cuda.empty_cache()

    # 2. compile
    meta.stage("compile")
    t0 = time.monotonic()
    try:
        sample = dict(job["sample"])
        candidate = backend.build(sample, job_dir, Path(job["cache_dir"]))
    except BaseException as e:  # noqa: BLE001
        meta.fail(e)
        return
    meta.data.update({"compile_s": time.monotonic() - t0, "cache_hit": candidate.cache_hit,
                      "compile_log": (candidate.compile_log or "")[-4000:]})

    # 3. run: A → reference bait → B
    meta.stage("run")
    try:
        _run_rounds(job, job_dir, meta, candidate, cases, out_specs, device)
    except BaseException as e:  # noqa: BLE001
        meta.fail(e)
        return

    # 4. time
    if timing:
        meta.stage("time")
        try:
            model = _make_candidate_module(candidate, cases[0], device, meta)
            inputs = cases[0]["inputs"]
            meta.data["kernel_ms"] = time_gpu(lambda: model(*inputs), timing, device)
        except BaseException as e:  # noqa: BLE001
            meta.fail(e)
            return
    meta.stage("done")


def _compile_only(backend, job: dict, job_dir: Path, meta: Meta) -> None:
    meta.stage("compile")
    try:
        candidate = backend.build(dict(job["sample"]), job_dir, Path(job["cache_dir"]))
    except BaseException as e:  # noqa: BLE001
        meta.fail(e)
        return
    meta.data.update({"cache_hit": candidate.cache_hit, "compile_log": (candidate.compile_log or "")[-4000:]})
    meta.stage("done")


def _make_candidate_module(candidate, case: dict, device: str, meta: Meta):
    """Build the candidate with the reference's constructor args and load the reference's weights."""
    import torch

    module = candidate.make_module(tuple(case["init_inputs"]))
    if isinstance(module, torch.nn.Module):
        module = module.to(device).eval()
    _load_weights(module, case, meta)
    return module


def _load_weights(module, case: dict, meta: Meta) -> None:
    """Load one seed's reference weights into the (single) candidate instance: strict, else by name."""
    import torch

    if not isinstance(module, torch.nn.Module):
        return
    try:
        module.load_state_dict(case["state_dict"], strict=True)
    except RuntimeError:
        meta.data["state_dict_mismatch"] = True
        module.load_state_dict(case["state_dict"], strict=False)


def _call_candidate(candidate, model, inputs: list, device: str) -> tuple[list, Optional[int]]:
    import torch

    count = candidate.launch_counter
    before = count() if count else None
    with torch.no_grad():
        out = flatten_outputs(model(*inputs))
    synchronize(device)
    after = count() if count else None
    launches = None if before is None or after is None else after - before
    return out, launches


def _run_rounds(job, job_dir, meta, candidate, cases, out_specs, device) -> None:
    from kvdata.reverify import tensor_blob
    from kvdata.reverify.checks import output_aliases, poison_allocator

    shapes, dtypes = [s for s, _ in out_specs], [d for _, d in out_specs]
    tree: dict[str, list] = {"A": [], "B": [], "inputs_after": []}
    launches: dict[str, list] = {"A": [], "B": []}
    aliases_input = aliases_reference = False
    # One candidate instance for every seed (new weights loaded per seed): state it keeps
    # between calls meets fresh inputs and weights, which is what catches caching.
    model = _make_candidate_module(candidate, cases[0], device, meta)
    fd = os.open(job_dir / CAND_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        # Each output is written out as soon as the call returns: a snapshot, taken before
        # the candidate runs again, with no second copy held in memory.
        blob = tensor_blob.BlobWriter(tensor_blob.fd_sink(fd))
        for case in cases:                                          # round A
            _load_weights(model, case, meta)
            inputs = clone_inputs(case["inputs"])
            poison_allocator(device, shapes, dtypes, int(job.get("poison_mb", 64)))
            out, n = _call_candidate(candidate, model, inputs, device)
            aliases_input |= output_aliases(out, inputs)
            tree["A"].append([blob.add(t) for t in out])
            tree["inputs_after"].append(blob.encode(list(inputs)))
            launches["A"].append(n)
            del out, inputs

        bait = _run_reference_bait(job, job_dir, cases, device)     # reference, in-process
        for case, bait_out in zip(cases, bait):                     # round B
            _load_weights(model, case, meta)
            inputs = clone_inputs(case["inputs"])
            out, n = _call_candidate(candidate, model, inputs, device)
            aliases_input |= output_aliases(out, inputs)
            aliases_reference |= output_aliases(out, bait_out)
            tree["B"].append([blob.add(t) for t in out])
            launches["B"].append(n)
            del out, inputs
        blob.finish(tree)
    finally:
        os.close(fd)
    meta.data.update({"launches": launches, "output_aliases_input": aliases_input,
                      "output_aliases_reference": aliases_reference})


def _run_reference_bait(job, job_dir, cases, device) -> list:
    """Run the reference in the candidate's process and keep its outputs alive.

    Round B then runs with reference outputs (and freed reference temporaries) in the
    allocator, where a cheating candidate would find them; the answer it gets here is
    never trusted, it only baits the trick.
    """
    import torch

    module = load_source_module(job["sample"]["pytorch_code"], job_dir / "reference_bait.py", "kv_reference_bait")
    (job_dir / "reference_bait.py").unlink()
    outs = []
    for case in cases:
        model = module.Model(*case["init_inputs"]).to(device).eval()
        model.load_state_dict(case["state_dict"])
        with torch.no_grad():
            outs.append(flatten_outputs(model(*clone_inputs(case["inputs"]))))
    synchronize(device)
    return outs
