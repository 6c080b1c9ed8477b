"""Parent side of one sample: write the job, run it in a warm sandboxed worker, judge the tensors.

``Verifier`` owns one warm worker per backend for one worker slot (a GPU, or a CPU
slot). ``verify(sample)`` returns the result row. Everything that decides the verdict
happens here, in the trusted parent, from raw tensor blobs it validates itself (``tensor_blob``):
the worker's exit code and output are only used to say *how* a sample failed.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any, Optional

from kvdata.reverify import checks
from kvdata.reverify.backends import BackendUnavailable, create_backend, resolve_backend
from kvdata.reverify.backends.base import ToolchainError
from kvdata.reverify.config import ReverifyConfig
from kvdata.reverify.harness import (JOB_FILE, META_FILE, ROUND_A_FILE, ROUND_B_FILE, ROUND_C_FILE, SEAL_LOST_EXIT,
                                     TIMED_FILE)
from kvdata.reverify.protocol import Job, JobStatus, ResultRow, WorkerReport
from kvdata.reverify.samples import Sample
from kvdata.reverify.store import result_key
from kvdata.reverify.worker import WarmWorker

# The sample's process starts with glibc malloc's perturb tunable: every block malloc hands out is filled with a
# byte pattern, so a host buffer a sample allocates (``torch.empty_like``) never holds what a freed one held, such
# as the answer of an earlier call. ``defences.poison_allocator`` does this for the GPU's caching allocator; on the
# host it cannot, as malloc keeps a heap per thread and the calls run in a thread of their own (``calls.py``).
HOST_ALLOCATOR_ENV = {"GLIBC_TUNABLES": "glibc.malloc.perturb=165"}

STATUSES = ("correct", "incorrect", "inconclusive", "compile_error", "toolchain_error", "runtime_error", "timeout",
            "crashed", "flagged", "shape_specialised", "range_specialised", "compiled", "no_reference", "skipped")
# inconclusive: the outputs match, but the reference is all zeros, so a kernel that writes nothing would too.
# toolchain_error: the compiler or its headers failed (backends.base.ToolchainError), so the sample was not
# judged; a compile_error is the sample's own.


def default_cache_root() -> Path:
    return Path(os.environ.get("KVDATA_CACHE", Path.home() / ".cache" / "kvdata")) / "reverify"


def draw_seeds(n: int, fixed: Optional[int] = None) -> list[int]:
    """Fresh seeds every run (a fixed list could be special-cased); ``fixed`` for debugging only."""
    if fixed is not None:
        return [fixed + i for i in range(n)]
    return [secrets.randbelow(2**31 - 1) for _ in range(n)]


def draw_bait_seeds(seeds: list[int], fixed: Optional[int] = None) -> list[int]:
    """Seeds for the bait (the reference rerun inside the candidate's process): one per seed, none compared.

    The bait's outputs stay alive where the candidate can find them, so they must answer
    inputs and weights that no compared round uses.
    """
    if fixed is not None:
        return [fixed + len(seeds) + i for i in range(len(seeds))]
    bait: list[int] = []
    while len(bait) < len(seeds):
        s = secrets.randbelow(2**31 - 1)
        if s not in seeds and s not in bait:
            bait.append(s)
    return bait


class Verifier:
    """Verifies samples one at a time on one worker slot."""

    def __init__(self, config: ReverifyConfig, cache_root: Optional[Path] = None,
                 scratch_root: Optional[Path] = None, visible_device: Optional[str] = None):
        self.config = config
        self.cache_root = Path(cache_root or default_cache_root())
        self.scratch_root = scratch_root
        self.visible_device = visible_device
        self.workers: dict[str, WarmWorker] = {}
        self.backends: dict[str, object] = {}
        self.environments: dict[str, dict] = {}

    # ---------------------------------------------------------------- backends and workers
    def backend_for(self, sample: Sample) -> str:
        return resolve_backend(sample.language, self.config.backend)

    def _backend(self, name: str):
        if name not in self.backends:
            backend = create_backend(name)
            ok, why = backend.is_available()
            if not ok:
                raise BackendUnavailable(f"{name}: {why}")
            self.backends[name] = backend
            self.environments[name] = backend.environment()
        return self.backends[name]

    def cache_dir(self, name: str) -> Path:
        """Compiled artifacts by toolchain and arch: Triton's cache for this backend lives here."""
        env = self.environments[name]
        tag = "-".join(str(env.get(k) or "na") for k in ("arch", "triton_version", "rocm_version"))
        d = self.cache_root / name / tag.replace("/", "_").replace(" ", "_")
        d.mkdir(parents=True, exist_ok=True)
        return d

    def sample_cache_dir(self, name: str, sample: Sample) -> Path:
        """This sample's own compile cache: ``cache_dir(name)/by-source/<sha256 of the kernel code>``.

        The only cache a sample may write (``harness._confine_to_job``): whatever it plants
        there can reach only samples with the same kernel source, i.e. its own reruns.
        """
        digest = hashlib.sha256((sample.kernel_code or "").encode()).hexdigest()[:32]
        d = self.cache_dir(name) / "by-source" / digest
        d.mkdir(parents=True, exist_ok=True)
        return d

    def _worker(self, name: str) -> WarmWorker:
        if name not in self.workers:
            from kvdata.sandbox import Sandbox, SandboxLimits

            backend = self._backend(name)
            cache = self.cache_dir(name)
            backend.prepare(cache)          # shared, read-only artifacts (hip-compile's precompiled headers)
            env = dict(backend.worker_env())
            env["TRITON_CACHE_DIR"] = str(cache / "triton")
            env["KVDATA_CACHE"] = str(cache)
            env.update(HOST_ALLOCATOR_ENV)                     # fresh host memory holds no stale answer
            if self.visible_device is not None:
                env["CUDA_VISIBLE_DEVICES"] = env["HIP_VISIBLE_DEVICES"] = self.visible_device
            limits = SandboxLimits(timeout_s=self.config.timeout_s, memory_mb=self.config.memory_mb,
                                   gpu=backend.device() != "cpu")
            sandbox = Sandbox(limits=limits, scratch_root=self.scratch_root, rw_binds=[str(cache)], env=env)
            self.workers[name] = WarmWorker(name, sandbox, spares_ahead=self.config.spares_ahead,
                                            rehearse=self.config.rehearse)
        return self.workers[name]

    def close(self) -> None:
        for w in self.workers.values():
            w.cleanup()
        self.workers.clear()

    # ---------------------------------------------------------------- one sample
    def key(self, sample: Sample) -> str:
        try:
            name = self.backend_for(sample)
        except BackendUnavailable:
            name = None
        return result_key({"id": sample.id, "backend": name, "config_hash": self.config.config_hash()})

    def verify(self, sample: Sample) -> ResultRow:
        t0 = time.monotonic()
        atol, rtol = self.config.tolerance(sample.language, sample.subset, sample.atol, sample.rtol)
        row = ResultRow(id=sample.id, subset=sample.subset, task_name=sample.task_name, language=sample.language,
                        atol=atol, rtol=rtol, config_hash=self.config.config_hash())
        try:
            name = self.backend_for(sample)
            row.backend = name
            backend = self._backend(name)
        except BackendUnavailable as e:
            return self._finish(row, "skipped", str(e), t0)
        for key, value in self.environments[name].items():     # hardware, arch, versions, compiler
            setattr(row, key, value)
        row.portability = bool(backend.portability)
        from kvdata.sandbox import isolation_level

        row.isolation = isolation_level()
        if not backend.compile_only and not (sample.pytorch_code or "").strip():
            return self._finish(row, "no_reference", "sample has no pytorch_code to compare against", t0)

        worker = self._worker(name)
        seeds = draw_seeds(self.config.seeds, self.config.seed)
        row.seeds = seeds
        try:
            job_dir = worker.new_job_dir()
        except Exception as e:  # noqa: BLE001 - a worker that cannot start fails this sample only
            return self._finish(row, "crashed", f"worker did not start: {e}", t0)
        sample_cache = self.sample_cache_dir(name, sample)
        cache = sample_cache / "triton"
        entries_before = _count_entries(cache)
        bait_seeds = draw_bait_seeds(seeds, self.config.seed)
        job = Job(sample=sample.to_job(), seeds=seeds, bait_seeds=bait_seeds,
                  decoy_seed=draw_bait_seeds(seeds + bait_seeds, self.config.seed)[0],
                  timing_seed=draw_seeds(1, self.config.seed)[0], device=backend.device(), backend=name,
                  cache_dir=str(sample_cache), poison_mb=self.config.poison_mb,
                  timing=vars(self.config.timing) if self.config.timing.enabled else None,
                  knockout=self.config.knockout, other_configs=self.config.other_configs)
        (job_dir / JOB_FILE).write_text(json.dumps(job.to_json()))
        outcome = worker.run(job_dir, self.config.timeout_s, self.config.memory_mb, backend.device())
        try:
            with _one_torch_thread():
                self._judge(row, backend, outcome, job_dir, atol, rtol)
        finally:
            shutil.rmtree(job_dir, ignore_errors=True)
        if self.sanitize_enabled(backend) and row.status in ("correct", "flagged", "incorrect", "shape_specialised",
                                                              "range_specialised"):
            self._sanitize(row, sample, name, backend, seeds[0], sample_cache)
        if row.cache_hit is None and name == "triton-gpu" and row.status in ("correct", "incorrect", "flagged"):
            row.cache_hit = _count_entries(cache) == entries_before
        row.peak_rss_mb = outcome.status.peak_rss_mb
        child_s = outcome.status.wall_s
        row.overhead_s = None if child_s is None else max(0.0, time.monotonic() - t0 - child_s)
        return self._finish(row, row.status, row.message, t0)

    def sanitize_enabled(self, backend) -> bool:
        """``--sanitize``: on where asked, and by default for portability runs; GPU backends only."""
        wanted = self.config.sanitize if self.config.sanitize is not None else bool(backend.portability)
        return wanted and backend.device() != "cpu" and not backend.compile_only

    def _sanitize(self, row: ResultRow, sample: Sample, name: str, backend, seed: int, sample_cache: Path) -> None:
        """One seed again under compute-sanitizer memcheck, without the caching allocator (``sanitize``)."""
        from kvdata.reverify import sanitize
        from kvdata.sandbox import Sandbox, SandboxLimits

        tool = sanitize.find_sanitizer()
        if tool is None:
            row.sanitizer = "not run: compute-sanitizer not found"
            return
        env = dict(backend.worker_env())
        env.update({"PYTORCH_NO_CUDA_MEMORY_CACHING": "1", "TRITON_CACHE_DIR": str(sample_cache / "triton")})
        if self.visible_device is not None:
            env["CUDA_VISIBLE_DEVICES"] = env["HIP_VISIBLE_DEVICES"] = self.visible_device
        box = Sandbox(limits=SandboxLimits(timeout_s=self.config.timeout_s, memory_mb=self.config.memory_mb, gpu=True),
                      scratch_root=self.scratch_root, rw_binds=[str(sample_cache)], env=env)
        scratch = box.make_scratch()
        try:
            sanitize.write_job(scratch / "job", sample.to_job(), seed, name, sample_cache)
            result = box.run(sanitize.sanitizer_argv(tool, scratch / "job"), scratch=scratch)
            report = sanitize.parse_report(result.returncode, result.stdout + result.stderr, result.timed_out)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        row.sanitizer = report.summary()
        unsafe = checks.check_memory_safe(report)
        if unsafe:
            row.flags += unsafe
            if row.status == "correct":
                row.status, row.message = "flagged", f"outputs match but: out_of_bounds ({report.summary()})"

    def _finish(self, row: ResultRow, status: str, message: str, t0: float) -> ResultRow:
        row.status = status
        row.message = (message or "")[:4000]
        row.correct = status == "correct"
        row.wall_s = time.monotonic() - t0
        row.verified_at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        return row

    # ---------------------------------------------------------------- the verdict
    def _judge(self, row: ResultRow, backend, outcome, job_dir: Path, atol: float, rtol: float) -> None:
        meta = WorkerReport.from_json(_read_json(job_dir / META_FILE))
        stage, error = meta.stage, meta.error
        log_tail = _tail(job_dir / "worker.log")
        status = outcome.status
        if meta.write_confinement == "landlock":
            row.isolation = f"{row.isolation}+landlock"
        row.stage_s = _with_process_stages(meta, status)
        row.spare_warmup_s = meta.clock.get("warmup") or None   # off the clock when ready
        if meta.cache_hit is not None:
            row.cache_hit = meta.cache_hit

        def done(st: str, msg: str) -> None:
            row.status, row.message = st, msg

        if outcome.worker_died:
            return done("crashed", f"worker died during stage {stage!r} ({status.lost}); "
                                   "it is restarted for the next sample")
        if status.timed_out:
            return done("timeout", f"over {self.config.timeout_s:.0f}s during stage {stage!r}")
        if status.memory_exceeded:
            row.flags.append("memory_exceeded")
            return done("crashed", f"over {self.config.memory_mb} MB during stage {stage!r}")
        if status.returncode == SEAL_LOST_EXIT and stage == "run":
            row.flags.append("tampered_outputs")
            return done("flagged", "the pipe that seals round A's outputs was closed or replaced before the bait ran")
        err_msg = f"{error.type}: {error.message}" if error else ""
        if error and error.type == ToolchainError.__name__ and stage == "compile":
            return done("toolchain_error", err_msg)
        if backend.compile_only:
            row.compile_ok = stage == "done"
            return done("compiled" if stage == "done" else "compile_error", err_msg or log_tail)
        if stage in ("start", "reference", None) or outcome.reference is None:
            if error or stage == "reference":
                return done("no_reference", f"reference failed: {err_msg or log_tail}")
            return done("crashed", _death(status, stage, log_tail))
        if stage == "compile":
            row.compile_ok = False
            return done("compile_error" if error else "crashed", err_msg or _death(status, stage, log_tail))
        row.compile_ok = True
        if error:
            return done("runtime_error", err_msg)
        a_path, b_path = job_dir / ROUND_A_FILE, job_dir / ROUND_B_FILE
        if not a_path.exists() or not b_path.exists() or stage not in ("run", "time", "done"):
            return done("crashed", _death(status, stage, log_tail))
        if stage != "done":
            return done("crashed", _death(status, stage, log_tail))

        t_judge = time.monotonic()
        try:
            ref = _read_reference(outcome.reference)
        except Exception as e:  # noqa: BLE001
            return done("no_reference", f"reference outputs unreadable: {e}")
        try:
            round_a = _open_round_a(a_path)
        except Exception as e:  # noqa: BLE001 - forged or broken output files fail the sample
            return done("incorrect", f"candidate outputs unreadable: {type(e).__name__}: {e}")
        tampered = checks.check_round_sealed(status.seal, round_a)
        if tampered:
            row.flags += tampered
            return done("flagged", "round A's outputs are not what the worker sealed before the bait ran "
                                   "(rewritten afterwards, or the seal was withheld)")
        try:
            rounds_a, rounds_b, inputs_after = _read_candidate(round_a, ref["inputs"], b_path)
            knockout = _read_knockout(round_a) or None      # {}: the backend has no kernel gate
            timed = _read_timed(job_dir / TIMED_FILE) if meta.kernel_ms else (None, None)
            configs = _read_configs(job_dir / ROUND_C_FILE, ref["configs"])
        except Exception as e:  # noqa: BLE001 - forged or broken output files fail the sample
            return done("incorrect", f"candidate outputs unreadable: {type(e).__name__}: {e}")
        self._apply_checks(row, meta, ref, rounds_a, rounds_b, inputs_after, atol, rtol, knockout, timed)
        self._apply_configs(row, configs, atol, rtol, ref["outputs"][0] if ref["outputs"] else [])
        row.judge_s = time.monotonic() - t_judge

    def _apply_configs(self, row: ResultRow, configs: list, atol: float, rtol: float, visible: list) -> None:
        """Other sizes and value ranges (``configs.py``): a sample right on the visible inputs only is
        ``shape_specialised`` or ``range_specialised``, not ``correct``."""
        flags, row.generalises = checks.check_configs(configs, atol, rtol, visible)
        flags = [f for f in flags if f in self.config.failing_flags]
        row.flags += flags
        if flags and row.status == "correct":
            row.status = flags[0]
            row.message = "right on the visible inputs only: " + (row.generalises or "").removeprefix("false: ")

    def _apply_checks(self, row, meta, ref, rounds_a, rounds_b, inputs_after, atol, rtol,
                      knockout: Optional[dict] = None, timed: tuple = (None, None)) -> None:
        n = len(ref["outputs"])
        if len(rounds_a) != n or len(rounds_b) != n:
            row.status, row.message = "incorrect", "candidate did not run every seed"
            return
        tolerances = [checks.output_tolerances(seed, atol, rtol) for seed in ref["outputs"]]
        first = _compare_rounds(rounds_a, ref["outputs"], tolerances, rtol)
        second = _compare_rounds(rounds_b, ref["outputs"], tolerances, rtol)
        verdict = checks.check_every_seed(first + second)
        flags = row.flags
        flags += checks.check_rerun_after_reference(first, second)
        flags += checks.check_input_fingerprints(ref["inputs"], inputs_after)
        flags += checks.check_inputs_vary(ref["inputs"])
        launches = meta.launches
        flags += checks.check_kernel_launched(list(launches.get("A", [])) + list(launches.get("B", [])))
        ops_per_call = [o for o in meta.torch_ops if isinstance(o, dict)]
        all_ops: dict = {}
        for ops in ops_per_call:
            for name, count in ops.items():
                all_ops[name] = all_ops.get(name, 0) + (count if isinstance(count, int) else 0)
        flags += checks.check_torch_compute(all_ops)
        row.torch_compute_ops = checks.torch_compute_ops(all_ops)[:20] or None
        flags += checks.check_dispatch_consistent(ops_per_call)
        flags += checks.check_torch_share(meta)
        flags += checks.check_clocks(meta)
        flags += checks.check_recorder(meta)
        flags += checks.check_global_state(meta)
        if knockout is not None:
            needed, result = checks.check_kernels_needed(knockout, ref["outputs"], tolerances, rtol)
            flags += needed
            row.knockout = result.summary()
        flags += checks.check_background_work(meta)
        flags += checks.check_outputs_not_aliased(meta)
        flags += checks.check_weights_loaded(meta)
        flags += checks.check_reference_finite([t for seed in ref["outputs"] for t in seed])
        flags += checks.check_degenerate_reference(tolerances)
        row.ref_ms, row.kernel_ms = meta.ref_ms, meta.kernel_ms
        if row.ref_ms and row.kernel_ms:
            row.timed_outputs_checked = True
            exact = [not (t.is_floating_point() or t.is_complex()) for t in ref["outputs"][0]] if n else []
            flags += (checks.check_timed_outputs(timed[0], ref.get("timed"), atol, rtol)
                      or checks.check_timed_sketches(timed[1], ref.get("timed_sketch"), tolerances[0] if n else [],
                                                     exact, rtol))
        row.max_abs_err = verdict.max_abs_err if verdict.max_abs_err is None or verdict.max_abs_err < float("inf") else None
        failing = [f for f in flags if f in self.config.failing_flags]
        timing_failed = {"timed_outputs_mismatch", "background_work", "timer_tampered"} & set(flags)
        if row.ref_ms and row.kernel_ms and not timing_failed:
            row.speedup = row.ref_ms / row.kernel_ms
            flags += checks.check_plausible_speedup(row.speedup, self.config.speedup_limit)
        if not verdict.ok:
            row.status, row.message = "incorrect", verdict.message
        elif failing:
            row.status, row.message = "flagged", "outputs match but: " + ", ".join(failing)
            if "timer_tampered" in failing:
                row.message += f" (replaced: {', '.join(map(str, meta.clock_patched[:6]))})"
        elif checks.is_undecidable(tolerances):
            row.status, row.message = "inconclusive", ("every reference output is all zeros: a kernel that "
                                                             "writes nothing cannot be told from a right one")
        else:
            row.status, row.message = "correct", ""


@contextlib.contextmanager
def _one_torch_thread():
    """torch's host ops on one thread while the parent judges, restored afterwards.

    The comparisons are small element-wise ops. On a many-core host torch's intra-op pool
    wakes a thread per core for each one while the warm workers hold those cores, and the
    judging stage becomes the slowest part of a sample (``scripts/bench_reverify.py --device cuda``
    shows it as ``parent_judge``).
    """
    import torch

    before = torch.get_num_threads()
    if before > 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if before > 1:
            torch.set_num_threads(before)


def _compare_rounds(outputs: list, reference: list, tolerances: list, rtol: float) -> list:
    """One comparison per seed; after the first failing seed the rest are not compared.

    The verdict and its message only need the first failure (``check_every_seed``), and
    ``check_rerun_after_reference`` only whether every seed of the round passed.
    """
    comparisons = []
    for out, ref, tol in zip(outputs, reference, tolerances):
        comparisons.append(checks.compare_outputs(out, ref, checks.OutputTolerance.atols(tol), rtol,
                                                  checks.OutputTolerance.centers(tol)))
        if not comparisons[-1].ok:
            break
    return comparisons


def _read_reference(payload) -> dict:
    """The reference blob the zygote forwarded: outputs per seed, input fingerprints per seed, seeds."""
    import torch

    from kvdata.reverify.tensor_blob import Blob

    if payload is None:
        raise ValueError("no reference")
    tree = Blob(payload).tree()
    outputs, inputs = tree["outputs"], tree["inputs"]
    if len(outputs) != len(inputs) or not all(isinstance(t, torch.Tensor) for seed in outputs for t in seed):
        raise ValueError("reference blob is malformed")
    timed = tree.get("timed") or []
    if not isinstance(timed, list) or not all(isinstance(t, torch.Tensor) for call in timed for t in _as_list(call)):
        raise ValueError("reference blob is malformed")
    configs = tree.get("configs") or []
    if not isinstance(configs, list) or not all(isinstance(c, dict) and isinstance(c.get("name"), str)
                                                and isinstance(c.get("outputs"), list) for c in configs):
        raise ValueError("reference blob is malformed")
    sketch = tree.get("timed_sketch") or []
    if not isinstance(sketch, list) or len(sketch) > 1 or not all(isinstance(t, torch.Tensor) for t in sketch):
        raise ValueError("reference blob is malformed")
    return {"outputs": outputs, "inputs": inputs, "seeds": tree.get("seeds"), "timed": [_as_list(c) for c in timed],
            "timed_sketch": sketch[0] if sketch else None, "configs": configs}


def _open_round_a(path: Path):
    """Round A's file, mapped read-only (only regular files: see ``tensor_blob.open_blob_file``)."""
    from kvdata.reverify.tensor_blob import open_blob_file

    return open_blob_file(path)


def _read_candidate(round_a, inputs_before: list, round_b=None) -> tuple[list, list, list]:
    """Rounds A and B (tensors viewing the mapped files) and fingerprints of the post-call inputs.

    ``round_a`` (a path or an already mapped buffer) holds round A and the post-call
    inputs; ``round_b`` (a path) round B — when None, round B is read from ``round_a``
    too (one blob holding all three, as ``scripts/bench_reverify.py`` writes).
    The files come from the candidate's process, so everything in them is validated
    (``tensor_blob.Blob``) and nothing is unpickled. A post-call input tensor is hashed
    only when its dtype and shape match the reference's: a forged huge entry costs no time.
    """
    from kvdata.reverify.tensor_blob import Blob, fingerprint_blob_node, open_blob_file

    blob = Blob(open_blob_file(round_a) if isinstance(round_a, (str, Path)) else round_a)
    blob_b = blob if round_b is None else Blob(open_blob_file(round_b))
    raw, raw_b = blob.raw_tree, blob_b.raw_tree
    if not isinstance(raw, dict) or not all(isinstance(raw.get(k), list) for k in ("A", "inputs_after")):
        raise ValueError("candidate blob is malformed")
    if not isinstance(raw_b, dict) or not isinstance(raw_b.get("B"), list):
        raise ValueError("candidate blob is malformed")
    rounds_a = [_as_list(blob._decode(seed)) for seed in raw["A"]]
    rounds_b = [_as_list(blob_b._decode(seed)) for seed in raw_b["B"]]
    after = [fingerprint_blob_node(blob, node, expected)
             for node, expected in zip(raw["inputs_after"], inputs_before)]
    after += [None] * (len(raw["inputs_after"]) - len(after))
    return rounds_a, rounds_b, after


def _as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def _read_knockout(round_a) -> dict:
    """The knockout rounds from round A's (sealed) blob: mode -> {"outputs", "handed"}, validated.

    The harness always writes the key (``{}`` when the backend has no kernel gate), so a blob
    without it is malformed.
    """
    from kvdata.reverify.tensor_blob import Blob

    blob = Blob(round_a)
    raw = blob.raw_tree.get("K")
    if not isinstance(raw, dict):
        raise ValueError("candidate blob has no knockout rounds")
    tree = {}
    for mode, node in raw.items():
        if not isinstance(node, dict) or not isinstance(node.get("outputs"), list):
            raise ValueError(f"knockout round {mode!r} is malformed")
        outputs = [None if seed is None else _as_list(blob._decode(seed)) for seed in node["outputs"]]
        handed = [_as_list(blob._decode(seed)) for seed in node.get("handed") or []]
        tree[str(mode)] = {"outputs": outputs, "handed": handed}
    return tree


def _read_configs(path: Path, ref_configs: list) -> list:
    """Per reference configuration (``configs.py``): (name, kind, reference outputs, candidate outputs or what it
    raised, or None when untested, why untested)."""
    import torch

    from kvdata.reverify.tensor_blob import Blob, open_blob_file

    tested = [c for c in ref_configs if not c.get("untested")]
    cand: list = []
    if tested:
        if not path.exists():
            raise ValueError("the candidate's run on the other configurations is missing")
        blob = Blob(open_blob_file(path))
        raw = blob.raw_tree
        if not isinstance(raw, dict) or not isinstance(raw.get("C"), list) or len(raw["C"]) != len(tested):
            raise ValueError("other-configurations blob is malformed")
        cand = [node if isinstance(node, str) else _as_list(blob._decode(node)) for node in raw["C"]]
        if not all(isinstance(c, str) or all(isinstance(t, torch.Tensor) for t in c) for c in cand):
            raise ValueError("other-configurations blob holds something other than tensors")
    out, it = [], iter(cand)
    for c in ref_configs:
        untested = str(c.get("untested") or "")
        out.append((c["name"], str(c.get("kind")), _as_list(c["outputs"]), None if untested else next(it), untested))
    return out


def _read_timed(path: Path) -> tuple[Optional[list], Any]:
    """The candidate's outputs of its last timed calls and the sketch of every timed call ((None, None) when the
    file is missing)."""
    import torch

    from kvdata.reverify.tensor_blob import Blob, open_blob_file

    if not path.exists():
        return None, None
    blob = Blob(open_blob_file(path))
    raw = blob.raw_tree
    if not isinstance(raw, dict) or not isinstance(raw.get("T"), list) or not isinstance(raw.get("S", []), list):
        raise ValueError("timed outputs blob is malformed")
    sketch = [blob._decode(t) for t in raw.get("S", [])]
    if len(sketch) > 1 or not all(isinstance(t, torch.Tensor) for t in sketch):
        raise ValueError("timed outputs blob is malformed")
    return [_as_list(blob._decode(call)) for call in raw["T"]], (sketch[0] if sketch else None)


def _count_entries(d: Path) -> int:
    try:
        return len(os.listdir(d))
    except OSError:
        return 0


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _tail(path: Path, n: int = 1500) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return ""


def _death(status: JobStatus, stage, log_tail: str) -> str:
    if status.finished:                     # the done pipe was written before the harness got this far
        how = "ended by the zygote: its done pipe was written, not by the harness"
    else:
        how = f"signal {status.signal}" if status.signal else f"exit code {status.returncode}"
    return f"worker ended ({how}) during stage {stage!r} without writing its outputs. {log_tail[-500:]}"


def _with_process_stages(meta: dict, status: JobStatus) -> Optional[dict]:
    """The child's stages plus three the zygote's clock shows (diagnostics, not checks):
    ``teardown`` (waiting, before this job, for the previous sample's processes to end),
    ``wait`` (job handed over -> the process took it: a spare still warming up) and
    ``exit`` (harness done -> the zygote saw it: the done byte, or the process's end)."""
    stages = meta.stage_s
    if not isinstance(stages, dict):
        return stages
    stages = dict(stages)
    child, zygote = meta.clock, status.clock
    if zygote is None:
        return stages
    try:
        if "received" in child:
            stages["wait"] = round(max(0.0, float(child["received"]) - zygote.dispatched), 4)
        if "done" in child:
            stages["exit"] = round(max(0.0, zygote.ended - float(child["done"])), 4)
        stages["teardown"] = round(max(0.0, zygote.teardown_s), 4)
    except (TypeError, ValueError):
        pass
    return stages
