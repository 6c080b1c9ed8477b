"""The code that runs inside the sandboxed worker for one sample (a child forked from the zygote).

``run_job(job_dir, ref_fd, seal_fd)`` does, in order:

1. **reference** — import ``pytorch_code``, and for every seed build ``Model`` and fresh
   inputs under that seed, run it, and write the outputs (with the inputs, for the
   parent's unchanged-inputs check: their sha256 fingerprints) to ``ref_fd``, a pipe to
   the zygote, as a raw tensor blob (never a pickle), together with the other sizes and value ranges
   (``configs.py``) and PyTorch's FLOP count of the forward. The timing entry points are captured before
   anything else runs (``clocks.py``). The pipe is
   closed and the reference module, its outputs and the allocator's cache are dropped
   *before any candidate code is imported*: the candidate never holds the trusted answer.
2. **compile** — ``backend.build`` turns ``kernel_code`` into a ``Candidate``.
3. **run** — round A: every seed (allocator poisoned before each call, aten ops recorded),
   outputs and post-call inputs written to ``cand_a.blob`` as each call returns; then the
   knockout rounds (``knockout.py``: every seed again with the kernels skipped, poisoned,
   zeroed or raising, each mode after a decoy call) into the same blob, which is then **sealed**: its
   size and sha256 leave through ``seal_fd``, a pipe to the zygote closed before anything
   below runs. Then the reference again, in-process, as **bait**, on a fresh input set
   (its own seeds: fresh weights and inputs no compared round uses; its outputs kept alive,
   its module dropped). Round B: every seed again, to ``cand_b.blob``, watching for work left
   running after each call. Round C: a fresh candidate per other configuration, to ``cand_c.blob``.
   Launches per call, torch's FLOPs, aliasing, replaced clocks and errors go to ``meta.json``
   (``protocol.WorkerReport``).
4. **time** (GPU only, ``timing.py``) — warm-up, then per timed call fresh inputs (``timing_inputs``), an L2
   flush, whole-device synchronisation around device events; median of repeats, for the
   reference (in stage 1, its last outputs and every call's sketch sent with the reference) and the candidate
   (its last outputs and every call's sketch to ``cand_t.blob``, judged by the parent).

This process decides nothing: the parent compares, flags and assigns the status from
the serialized tensors alone, never from this process's exit code or stdout.
"""
from __future__ import annotations

import gc
import importlib.util
import json
import math
import os
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Optional

from kvdata.reverify import recorder_guard
from kvdata.reverify.calls import CallServer, flatten_outputs
from kvdata.reverify.clocks import Clocks
from kvdata.reverify.configs import other_configs
from kvdata.reverify.global_state import GlobalState
from kvdata.reverify.protocol import Job, WorkerError, WorkerReport
from kvdata.reverify.timing import time_gpu

JOB_FILE = "job.json"
META_FILE = "meta.json"
ROUND_A_FILE = "cand_a.blob"       # round A + post-call inputs; sealed before the bait runs
ROUND_B_FILE = "cand_b.blob"       # round B, after the bait
TIMED_FILE = "cand_t.blob"         # the candidate's outputs of its last timed calls
ROUND_C_FILE = "cand_c.blob"       # the candidate on the other configurations (configs.py)
REFERENCE_MODULE = "kv_reference"
BAIT_MODULE = "kv_reference_bait"
SEAL_LOST_EXIT = 86                # exit status: round A's seal could not be sent (pipe closed or replaced)


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
    """Drop an imported module so that its classes (reference cycles) are collected now.

    Callers delete their own references to the module first: a class that survives
    this collection stays reachable through ``gc.get_objects()`` for the candidate.
    """
    sys.modules.pop(name, None)
    gc.collect()


_CALLS: Optional[CallServer] = None   # the process's call thread (calls.py), started by run_job


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
    """Writes this process's ``protocol.WorkerReport`` to ``meta.json``, rewritten at every stage
    so that a kill mid-stage still tells the parent where it died."""

    def __init__(self, job_dir: Path, received_at: Optional[float] = None, warmup: Optional[dict] = None):
        self.path = job_dir / META_FILE
        self._t = time.monotonic()
        # CLOCK_MONOTONIC is system-wide: the parent sets these against the zygote's own
        # dispatch/end times to show the wait for a spare and the process exit (diagnostics).
        self.report = WorkerReport(clock={"received": received_at or self._t, "warmup": warmup or {}})

    def stage(self, name: str) -> None:
        now = time.monotonic()
        self.report.stage_s[self.report.stage] = round(now - self._t, 4)
        self._t = now
        self.report.stage = name
        if name == "done":
            self.report.clock["done"] = now
        self.write()

    def fail(self, exc: BaseException) -> None:
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        self.report.error = WorkerError(type(exc).__name__, str(exc)[:2000], "".join(tb)[-4000:])
        self.write()

    def write(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.report.to_json(), default=str))
        os.replace(tmp, self.path)


# ----------------------------------------------------------------------------- reference
def build_reference_case(module, seed: int, device: str, count_flops: bool = False) -> dict:
    """Model, constructor args and inputs of one seed, all drawn under that seed; with ``count_flops``, also the
    FLOPs of its forward (``defences.torch_op_recorder``; shapes decide them, so one seed's count stands for all)."""
    import contextlib

    import torch

    from kvdata.reverify.defences import torch_op_recorder

    seed_everything(seed)
    init_inputs = list(module.get_init_inputs()) if hasattr(module, "get_init_inputs") else []
    model = module.Model(*init_inputs).to(device).eval()
    inputs = to_device(list(module.get_inputs()), device)
    counter = torch_op_recorder() if count_flops else None
    with torch.no_grad(), counter if counter is not None else contextlib.nullcontext():
        outputs = flatten_outputs(model(*clone_inputs(inputs)))
    synchronize(device)
    return {"seed": seed, "init_inputs": init_inputs, "state_dict": model.state_dict(),
            "inputs": inputs, "outputs": outputs, "model": model,
            "flops": counter.flops if counter is not None else None,
            "elements": counter.elements if counter is not None else None}


def send_reference(ref_fd: int, cases: list[dict], timed: Optional[list] = None, configs: list = (),
                   timed_sketch=None) -> None:
    """Ship reference outputs (and fingerprints of the inputs) out of the process through the pipe, then close it.

    The outputs are written straight from tensor memory; the inputs only as fingerprints
    (dtype, shape, sha256): the parent needs them only to tell whether the candidate
    changed them, and it hashes the post-call inputs itself. ``timed``: the reference's
    outputs of the last timed calls (``time_gpu``), the answers for the candidate's, and ``timed_sketch`` the
    sketches of every timed call's outputs. ``configs``: the other sizes and value ranges
    (``configs.ConfigCase``): name, kind, outputs, or why untested.
    """
    from kvdata.reverify import tensor_blob

    try:
        tensor_blob.dump({"outputs": [c["outputs"] for c in cases],
                          "inputs": [tensor_blob.fingerprint(list(c["inputs"])) for c in cases],
                          "seeds": [c["seed"] for c in cases], "timed": timed or [],
                          "timed_sketch": [] if timed_sketch is None else [timed_sketch],
                          "configs": [{"name": c.name, "kind": c.kind, "outputs": c.outputs, "untested": c.untested}
                                      for c in configs]}, tensor_blob.fd_sink(ref_fd))
    finally:
        os.close(ref_fd)


# ----------------------------------------------------------------------------- the job
def run_job(job_dir: Path, ref_fd: int, seal_fd: Optional[int] = None,
            received_at: Optional[float] = None, warmup: Optional[dict] = None) -> None:
    """Everything one sample needs inside the worker; see the module docstring.

    ``ref_fd`` and ``seal_fd`` are pipes to the zygote: the reference's outputs, and the
    seal of round A (``tensor_blob.SealingSink``). Without ``seal_fd`` round A is not
    sealed and the parent flags the sample ``tampered_outputs``. ``received_at``: when the
    process got its job (``time.monotonic()``), and ``warmup``: what its warm-up took, for
    the timing diagnostics.
    """
    job_dir = Path(job_dir)
    seal_pipe = _pipe_identity(seal_fd)     # taken before any candidate code (compile imports it) runs
    clocks = Clocks.capture()               # likewise: what timing calls, and what must stay put
    job = Job.from_json(json.loads((job_dir / JOB_FILE).read_text()))
    (job_dir / JOB_FILE).unlink()          # the reference's code is not left lying around for the candidate
    meta = Meta(job_dir, received_at, warmup)
    device = job.device
    if device != "cpu":
        import torch

        torch.cuda.set_device(0)
    meta.report.write_confinement = _confine_to_job(job_dir, Path(job.cache_dir), device)
    meta.write()
    global _CALLS
    _CALLS = CallServer(clocks, device)     # every model call from here on runs in its thread (calls.py)

    from kvdata.reverify.backends import create_backend

    backend = create_backend(job.backend)
    if backend.compile_only:
        _close_quietly(ref_fd)
        _close_quietly(seal_fd)
        _compile_only(backend, job, job_dir, meta)
        return

    # 1. reference, before any candidate code exists in this process
    meta.stage("reference")
    try:
        ref_module = load_source_module(job.sample["pytorch_code"], job_dir / "reference.py", REFERENCE_MODULE)
        (job_dir / "reference.py").unlink()
        cases = [build_reference_case(ref_module, s, device, count_flops=i == 0) for i, s in enumerate(job.seeds)]
        meta.report.ref_flops, meta.report.ref_elements = cases[0]["flops"], cases[0]["elements"]
        configs = other_configs(ref_module, cases[0], build_reference_case,
                                lambda model, x: flatten_outputs(model(*clone_inputs(x))), device) \
            if job.other_configs else []
        out_specs = [(tuple(t.shape), t.dtype) for t in cases[0]["outputs"]]
        timing = job.timing if device != "cpu" else None
        timed = None
        if timing:
            timed = time_gpu(cases[0]["model"], cases[0]["inputs"], timing, device, job.timing_seed, _CALLS)
            meta.report.ref_ms, meta.report.ref_host_gap_ms = timed.ms, timed.host_gap_ms
        send_reference(ref_fd, cases, timed.kept if timed else None, configs, timed.sketch if timed else None)
        for c in configs:
            c.outputs = []
        del timed
        # the knockout's decoy: weights and inputs of a seed no round compares (its outputs are not needed)
        decoy = build_reference_case(ref_module, job.decoy_seed, device)
        del decoy["outputs"], decoy["model"]
    except BaseException as e:  # noqa: BLE001 - any failure of the reference is reported, not raised
        meta.fail(e)
        return
    for c in cases:
        del c["outputs"], c["model"]
    del ref_module                          # before the collection: else its Model class outlives it
    forget_module(REFERENCE_MODULE)
    if device != "cpu":
        import torch

        torch.cuda.empty_cache()

    # 2. compile: the candidate's code is imported here, so the recorder's escape hatches are wrapped and the
    # process-wide state read first
    recorder_guard.install(job_dir)
    global_state = GlobalState.capture()
    meta.stage("compile")
    t0 = time.monotonic()
    try:
        candidate = backend.build(dict(job.sample), job_dir, Path(job.cache_dir))
    except BaseException as e:  # noqa: BLE001
        meta.fail(e)
        return
    meta.report.compile_s = time.monotonic() - t0
    _note_tampering(clocks, global_state, meta)
    meta.report.cache_hit, meta.report.compile_log = candidate.cache_hit, (candidate.compile_log or "")[-4000:]

    # 3. run: A → reference bait → B
    meta.stage("run")
    try:
        _run_rounds(job, job_dir, meta, candidate, cases, decoy, out_specs, device, seal_fd, seal_pipe)
        _config_round(candidate, configs, device, meta, job_dir)
    except BaseException as e:  # noqa: BLE001
        meta.fail(e)
        return
    _note_tampering(clocks, global_state, meta)

    # 4. time, on fresh inputs per call; the last calls' outputs are judged too
    if timing:
        meta.stage("time")
        try:
            model = make_candidate_module(candidate, cases[0], device, meta)
            timed = time_gpu(model, cases[0]["inputs"], timing, device, job.timing_seed, _CALLS)
            meta.report.kernel_ms, meta.report.kernel_host_ms = timed.ms, timed.host_ms
            meta.report.kernel_host_gap_ms = timed.host_gap_ms
            with _BlobFile(job_dir / TIMED_FILE) as blob:
                blob.finish({"T": [[blob.add(t) for t in call] for call in timed.kept],
                             "S": [] if timed.sketch is None else [blob.add(timed.sketch)]})
            del timed
        except BaseException as e:  # noqa: BLE001
            meta.fail(e)
            return
    _note_tampering(clocks, global_state, meta)
    meta.stage("done")


def _config_round(candidate, configs: list, device: str, meta: Meta, job_dir: Path) -> None:
    """The candidate on each tested configuration (``configs.py``), a fresh instance per configuration with its
    constructor arguments and weights; what it raised stands in for its outputs (a string: it did not run). The
    op recorder watches these calls too: torch's work there goes to ``config_flops`` beside the reference's."""
    tested = [c for c in configs if not c.untested]
    if not tested:
        return
    with _BlobFile(job_dir / ROUND_C_FILE) as blob:
        outputs = []
        for c in tested:
            case = {"seed": c.seed, "init_inputs": c.init_inputs, "state_dict": c.state_dict, "inputs": c.inputs}
            try:
                model = make_candidate_module(candidate, case, device, meta)
                ran = _candidate_round(candidate, model, [case], device, meta, blob, record_ops=True)
                outputs.append(ran.outputs[0])
                meta.report.config_flops.append([ran.torch_flops[0], c.ref_flops, c.ref_elements])
                meta.report.torch_ops.append(ran.torch_ops[0])      # torch math first met here: a fallback
            except Exception as exc:  # noqa: BLE001 - a candidate that fails on another size fails that size
                outputs.append(f"{type(exc).__name__}: {exc}"[:300])
            finally:
                model = None
        blob.finish({"C": outputs})


def _note_tampering(clocks: Clocks, global_state: GlobalState, meta: Meta) -> None:
    """Record the timing entry points the candidate has replaced so far (``checks.check_clocks``), the
    recorder's entry points its code has called (``checks.check_recorder``) and the process-wide settings and
    hook tables it changed (``checks.check_global_state``)."""
    meta.report.clock_patched = sorted(set(meta.report.clock_patched) | set(clocks.replaced()))
    meta.report.recorder_evaded = recorder_guard.noted()
    meta.report.global_changes = sorted(set(meta.report.global_changes) | set(global_state.changed()))


def _confine_to_job(job_dir: Path, cache_dir: Path, device: str) -> Optional[str]:
    """Before any of the sample's code (its reference included) runs: point HOME, TMPDIR and
    Triton's cache at this job's own directories and take away the right to write anywhere
    else (``sandbox.confine_writes``). Returns "landlock" when writes are confined.

    ``cache_dir`` is this sample's own compile cache (the parent names it by a hash of the
    kernel source), so a sample can no longer plant compiled kernels, a Triton launcher or
    files in the next job's directory for another sample. Triton's driver (its compiled
    helper module) is set up first, from the worker's shared cache, which samples cannot write.
    """
    import tempfile

    from kvdata.sandbox import confine_writes

    if device != "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        init_triton_driver()
    home, tmp = job_dir / "home", job_dir / "tmp"
    for d in (home, tmp, cache_dir / "triton"):
        d.mkdir(parents=True, exist_ok=True)
    os.environ.update({"HOME": str(home), "TMPDIR": str(tmp), "TRITON_CACHE_DIR": str(cache_dir / "triton")})
    tempfile.tempdir = None                 # forget the zygote's tmp dir
    confined = confine_writes([job_dir, cache_dir, "/dev", "/proc/self"])
    return "landlock" if confined else None


def init_triton_driver() -> None:
    """Set up Triton's driver for this process's device: its compiled helper module and the
    first launch's bookkeeping. Optional: without Triton, or on another device, nothing."""
    try:
        from triton.runtime import driver

        driver.active.get_current_device()
    except Exception:  # noqa: BLE001 - only saves time; the backend reports what matters
        pass


def _compile_only(backend, job: Job, job_dir: Path, meta: Meta) -> None:
    meta.stage("compile")
    try:
        candidate = backend.build(dict(job.sample), job_dir, Path(job.cache_dir))
    except BaseException as e:  # noqa: BLE001
        meta.fail(e)
        return
    meta.report.cache_hit, meta.report.compile_log = candidate.cache_hit, (candidate.compile_log or "")[-4000:]
    meta.stage("done")


def make_candidate_module(candidate, case: dict, device: str, meta: Meta):
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
        meta.report.state_dict_mismatch = True
        module.load_state_dict(case["state_dict"], strict=False)


def _call_candidate(candidate, model, inputs: list, watch_background: bool = False, prepare=None) -> "_Call":
    """One candidate call: its outputs, launches, and whether it left work running when it returned.

    ``prepare``: run in the call thread just before the call (the allocator poisoning, ``CallServer.call``).
    ``watch_background`` (round B): threads the call started that are still alive when it
    returns, and on a GPU, outputs that change between the return (current stream finished)
    and a whole-device synchronisation: work left on another stream or thread.
    """
    import threading

    import torch

    gate = candidate.kernel_gate
    before = gate.count if gate else None
    threads = set(threading.enumerate()) if watch_background else set()
    call = _CALLS.call(model, inputs, snapshot_early=watch_background, before=prepare)  # synchronised after it
    out = call.outputs
    background = False
    if watch_background:
        background = any(t.is_alive() for t in threading.enumerate() if t not in threads)
    if call.early is not None:
        background |= any(not torch.equal(e, t.detach().cpu()) for e, t in zip(call.early, out) if e.dtype == t.dtype)
    after = gate.count if gate else None
    launches = None if before is None or after is None else after - before
    return _Call(out, launches, background)


class _Call:
    __slots__ = ("outputs", "launches", "background")

    def __init__(self, outputs: list, launches: Optional[int], background: bool):
        self.outputs, self.launches, self.background = outputs, launches, background


def _run_rounds(job: Job, job_dir, meta, candidate, cases, decoy, out_specs, device, seal_fd, seal_pipe) -> None:
    """Round A and the knockout rounds (sealed together) → reference bait on fresh inputs → round B."""
    from kvdata.reverify.defences import poison_allocator

    shapes, dtypes = [s for s, _ in out_specs], [d for _, d in out_specs]
    poison_mb = job.poison_mb
    poison = lambda: poison_allocator(device, shapes, dtypes, poison_mb)  # noqa: E731
    poison_index_safe = lambda: poison_allocator(device, shapes, dtypes, poison_mb, index_safe=True)  # noqa: E731
    # One candidate instance for every seed (new weights loaded per seed): state it keeps
    # between calls meets fresh inputs and weights, which is what catches caching.
    model = make_candidate_module(candidate, cases[0], device, meta)

    with _BlobFile(job_dir / ROUND_A_FILE, sealed=True) as blob:            # round A, then the knockout
        a = _candidate_round(candidate, model, cases, device, meta, blob, before_call=poison,
                             keep_inputs=True, record_ops=True)
        knockout = _knockout_rounds(job, candidate, model, cases, decoy, device, meta, blob, poison_index_safe,
                                    [math.prod(s) for s in shapes])
        blob.finish({"A": a.outputs, "inputs_after": a.inputs_after, "K": knockout})
    _send_seal(seal_fd, seal_pipe, blob.seal, meta)                          # A and K are fixed from here on

    bait = _run_reference_bait(job, job_dir, device)                         # fresh inputs, outputs kept alive
    bait_outputs = [t for seed in bait for t in seed]
    with _BlobFile(job_dir / ROUND_B_FILE) as blob:                          # round B
        b = _candidate_round(candidate, model, cases, device, meta, blob, bait_outputs=bait_outputs,
                             watch_background=True, record_ops=True)
        blob.finish({"B": b.outputs})
    del bait, bait_outputs
    report = meta.report
    report.launches = {"A": a.launches, "B": b.launches}
    report.torch_ops, report.torch_flops = a.torch_ops + b.torch_ops, a.torch_flops + b.torch_flops
    report.output_aliases_input = a.aliases_input or b.aliases_input
    report.output_aliases_reference, report.background_work = b.aliases_reference, b.background


def _knockout_rounds(job: Job, candidate, model, cases, decoy, device, meta, blob: "_BlobFile", poison,
                     output_numels) -> dict:
    """Every seed again with the candidate's kernels disabled, once per knockout mode (``knockout``).

    Each mode starts with one ordinary call on the decoy case (inputs and weights of a seed
    no round compares): buffers the candidate keeps between calls, which disabled kernels do
    not rewrite, then hold an answer to no compared seed, never a stale right one. Returns the
    blob tree: per mode, per seed, the outputs (None when the call raised: the kernels were
    needed) and copies of the output-sized tensors handed to kernels.
    """
    from kvdata.reverify.knockout import protected_tensors, sample_elements

    gate = candidate.kernel_gate
    if gate is None or not job.knockout:
        return {}
    tree: dict = {}
    for mode in gate.modes:
        _load_weights(model, decoy, meta)
        _call_candidate(candidate, model, clone_inputs(decoy["inputs"]))
        outputs, handed = [], []
        gate.reset_budget()
        for case in cases:
            _load_weights(model, case, meta)
            inputs = clone_inputs(case["inputs"])
            gate.arm(mode, protected_tensors(model, inputs), output_numels)
            try:
                outputs.append([blob.add(sample_elements(t)) for t in
                                _call_candidate(candidate, model, inputs, prepare=poison).outputs])
            except Exception:  # noqa: BLE001 - a candidate that breaks without its kernels needed them
                outputs.append(None)
            finally:
                handed.append([blob.add(t) for t in gate.disarm()])
            del inputs
        tree[mode] = {"outputs": outputs, "handed": handed}
    return tree


class _BlobFile:
    """A blob written to a file in the job dir as tensors come; with ``sealed``, hashed on the way."""

    def __init__(self, path: Path, sealed: bool = False):
        self.path, self.sealed = path, sealed
        self.seal: Optional[bytes] = None

    def __enter__(self):
        from kvdata.reverify import tensor_blob

        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        sink = tensor_blob.fd_sink(self.fd)
        self.sink = tensor_blob.SealingSink(sink) if self.sealed else sink
        self.writer = tensor_blob.BlobWriter(self.sink)
        return self

    def add(self, tensor) -> dict:
        return self.writer.add(tensor)

    def encode(self, value):
        return self.writer.encode(value)

    def finish(self, tree) -> None:
        self.writer.finish(tree)
        if self.sealed:
            self.seal = self.sink.seal()

    def __exit__(self, *exc) -> None:
        os.close(self.fd)


class _Round:
    """What one candidate round produced: blob leaves per seed, launches, ops, aliasing."""

    def __init__(self):
        self.outputs: list = []
        self.inputs_after: list = []
        self.launches: list = []
        self.torch_ops: list = []                # aten ops of each call, by name (record_ops)
        self.torch_flops: list = []              # work torch ran in each call: FLOPs + elements (record_ops)
        self.aliases_input = False
        self.aliases_reference = False
        self.background = False


def _candidate_round(candidate, model, cases, device, meta, blob: _BlobFile, before_call=None,
                     keep_inputs: bool = False, bait_outputs: tuple = (), record_ops: bool = False,
                     watch_background: bool = False) -> _Round:
    """One candidate call per seed; each output is written to ``blob`` as soon as the call returns.

    Written at once: a snapshot, taken before the candidate runs again, with no second
    copy held in memory. ``record_ops``: the aten ops of every call are counted
    (``checks.check_torch_compute``, ``checks.check_dispatch_consistent``), inside calls
    that are judged like any other.
    """
    from kvdata.reverify.defences import output_aliases, torch_op_recorder

    result = _Round()
    for case in cases:
        _load_weights(model, case, meta)
        inputs = clone_inputs(case["inputs"])
        recorder = torch_op_recorder() if record_ops else None
        _CALLS.modes = (recorder,) if record_ops else ()     # entered in the call thread (calls.py)
        try:
            call = _call_candidate(candidate, model, inputs, watch_background, prepare=before_call)
        finally:
            _CALLS.modes = ()
        if recorder is not None:
            result.torch_ops.append(recorder.counts)
            result.torch_flops.append(recorder.flops + recorder.elements)
        out = call.outputs
        result.aliases_input |= output_aliases(out, inputs)
        if bait_outputs:
            result.aliases_reference |= output_aliases(out, bait_outputs)
        result.background |= call.background
        result.outputs.append([blob.add(t) for t in out])
        if keep_inputs:
            result.inputs_after.append(blob.encode(list(inputs)))
        result.launches.append(call.launches)
        del out, inputs, call
    return result


def _pipe_identity(fd: Optional[int]) -> Optional[tuple]:
    """(device, inode) of the seal pipe, taken before any candidate code runs."""
    if fd is None:
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _send_seal(seal_fd: Optional[int], identity: Optional[tuple], seal: Optional[bytes], meta: Meta) -> None:
    """Send round A's seal to the zygote and close the pipe, before the bait runs.

    The zygote keeps the first ``SEAL.size`` bytes that arrive: anything the candidate
    wrote there itself was written before this point, so before the bait existed. If
    the fd no longer is the pipe it was (the candidate closed it, or ``dup2``'d a file of
    its own over it while keeping a copy, to send a seal of its own after the bait), the
    process ends at once with ``SEAL_LOST_EXIT``, before the bait runs: the zygote
    reports the exit status and the parent flags ``tampered_outputs``.
    """
    if seal_fd is None:
        return
    try:
        if seal is None or identity is None or _pipe_identity(seal_fd) != identity:
            raise OSError("the seal pipe was closed or replaced")
        os.write(seal_fd, seal)                     # < PIPE_BUF: one atomic write
    except OSError:
        meta.report.seal_not_sent = True
        meta.write()
        os._exit(SEAL_LOST_EXIT)
    _close_quietly(seal_fd)


def _close_quietly(fd: Optional[int]) -> None:
    if fd is None:
        return
    try:
        os.close(fd)
    except OSError:
        pass


def bait_seeds(job: Job) -> list[int]:
    """The bait's seeds: the job's ``bait_seeds`` (drawn by the parent), never one of the compared seeds.

    Why fresh seeds: the bait's outputs stay alive in the candidate's process, where it
    can find them (``gc``) or rerun the bait's ``Model``; on inputs and weights no compared
    round uses, what it finds is the wrong answer for round B.
    """
    import secrets

    compared = set(job.seeds)
    seeds = [s for s in job.bait_seeds if s not in compared]
    while len(seeds) < len(job.seeds):
        s = secrets.randbelow(2**31 - 1)
        if s not in compared and s not in seeds:
            seeds.append(s)
    return seeds


def _run_reference_bait(job: Job, job_dir, device) -> list:
    """Run the reference in the candidate's process, on a fresh input set, and keep its outputs alive.

    Round B then runs with reference outputs (and freed reference temporaries) in the
    allocator, where a cheating candidate would find them; they answer other inputs
    (``bait_seeds``), and the answer computed here is never trusted. The bait's module
    leaves ``sys.modules`` and its models, weights and inputs are dropped right after,
    so its ``Model`` class is collected before round B.
    """
    module = load_source_module(job.sample["pytorch_code"], job_dir / "reference_bait.py", BAIT_MODULE)
    try:
        (job_dir / "reference_bait.py").unlink()
        outs = []
        for seed in bait_seeds(job):
            case = build_reference_case(module, seed, device)
            outs.append(case["outputs"])
            del case
    finally:
        del module
        forget_module(BAIT_MODULE)
    return outs
