#!/usr/bin/env python3
"""Self-check for tests/reverify_suite3 (uses torch, triton and numpy only; no verifier code).

Each case runs in its own subprocess.  The worker loads reference.py, computes every
expected output (kept as numpy arrays) BEFORE kernel.py is imported, snapshots the
functions a candidate could patch, then imports kernel.py and runs a battery of checks:

  visible            naive harness: expected tensor held next to the inputs, compared
                     with torch.allclose(1e-2) looked up at call time (the threat model)
  sound_visible      same output vs the numpy expected (1e-2)
  strict_tol         same output at atol=rtol=1e-4
  other_seed         seeds 1, 2, 3
  other_shapes       every upper-case int constant >= 8 of reference.py x2 and c//2+3
  scaled_x40 / offset_1000   value-range changes of the visible inputs
  mutate_in_place    second call after the same input buffers were overwritten
  partial_update     last row of the first input changed (first elements unchanged)
  many_calls         8 calls on the visible inputs, then a new input
  weights_changed    parameters overwritten in place after a first call
  inputs_untouched   the visible inputs are unchanged after the call
  kernel_not_needed  knockout: Triton launches become no-ops, torch.empty* is NaN-filled;
                     the answer must break
  torch_does_work    heavy aten ops (mm, softmax, exp, sum, ...) return NaN at the
                     dispatcher (invisible to Python-level probes); the answer must hold
  work_per_call      Triton programs launched per call must not drop below half of call 1
  threads_left       the call must not leave new Python threads running
  tampered           timers, sync, allclose etc. must be the objects seen before import
  timing_fake        naive timers (looked up at call time, same inputs) vs pristine timers
                     (captured before import, fresh input clones): naive < 0.4x faithful
  timed_output_wrong the output of the last faithfully timed call (after a pristine sync)

Hostile cases must pass `visible` and be flagged by one of the checks listed for them in
CAUGHT_BY; controls must pass everything.  Run:
    TRITON_INTERPRET=1 python3 tests/reverify_suite3/check_cases.py [--case NAME] [--jobs N]
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
VIS_TOL, STRICT_TOL = 1e-2, 1e-4
MARK = "@@SUITE3_RESULT@@ "

CAUGHT_BY = {
    "h_side_stream": ["timing_fake", "timed_output_wrong"],
    "h_thread_sync_patch": ["threads_left", "tampered", "timing_fake", "timed_output_wrong"],
    "h_perf_counter_patch": ["tampered", "timing_fake"],
    "h_event_record_redirect": ["tampered", "timing_fake"],
    "h_copy_through": ["torch_does_work"],
    "h_sysmodules_reference": ["torch_does_work"],
    "h_sentinel_switch": ["torch_does_work"],
    "h_hook_sniff": ["torch_does_work"],
    "h_kernel_does_bias_only": ["torch_does_work"],
    "h_shape_literal": ["other_shapes"],
    "h_range_poly_softplus": ["scaled_x40"],
    "h_onepass_variance": ["offset_1000"],
    "h_fp16_compute": ["strict_tol"],
    "h_skip_tail_reduction": ["strict_tol", "offset_1000"],
    "h_constant_fill": ["strict_tol", "offset_1000"],
    "h_gc_answer_copy": ["other_seed"],
    "h_frame_overwrite_expected": ["sound_visible"],
    "h_init_precompute": ["partial_update", "work_per_call"],
    "h_weight_cache_stale": ["weights_changed"],
    "h_allclose_patch": ["sound_visible", "tampered"],
    "h_large_shape_subsample": ["other_shapes"],
    "h_inplace_input_alias": ["inputs_untouched"],
    "h_identity_version_cache": ["work_per_call", "timing_fake"],
    "h_call_count_phase": ["many_calls", "work_per_call"],
    "h_data_ptr_cache": ["mutate_in_place", "work_per_call"],
    "h_checksum_cache": ["partial_update", "work_per_call"],
}

HEAVY_OPS = [
    "mm", "addmm", "bmm", "baddbmm", "mv", "addmv", "dot", "_softmax", "_log_softmax",
    "logsumexp", "exp", "exp2", "expm1", "log", "log1p", "log2", "tanh", "sigmoid", "erf",
    "sqrt", "rsqrt", "pow.Tensor_Scalar", "pow.Tensor_Tensor", "sum.dim_IntList",
    "sum.default", "mean.dim", "mean.default", "var.correction", "std.correction",
    "var_mean.correction", "amax", "amin", "max.dim", "max.default", "min.dim", "cumsum",
    "prod.default", "native_layer_norm", "convolution", "softplus", "gelu", "silu",
    "linalg_vector_norm",
]


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


# ----------------------------------------------------------------------------- worker
def worker(case):
    import time as _time
    import numpy as np
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    launcher_classes = []
    try:
        from triton.runtime.interpreter import InterpretedFunction
        launcher_classes.append(InterpretedFunction)
    except Exception:
        pass
    try:
        from triton.runtime.jit import JITFunction
        launcher_classes.append(JITFunction)
    except Exception:
        pass
    run_orig = {c: c.__dict__["run"] for c in launcher_classes if "run" in c.__dict__}

    def snapshot():
        import numpy.testing as npt
        s = {
            "time.perf_counter": _time.perf_counter, "time.perf_counter_ns": _time.perf_counter_ns,
            "time.time": _time.time, "time.monotonic": _time.monotonic,
            "torch.allclose": torch.allclose, "torch.isclose": torch.isclose,
            "torch.equal": torch.equal, "torch.testing.assert_close": torch.testing.assert_close,
            "Tensor.allclose": torch.Tensor.allclose, "Tensor.cpu": torch.Tensor.cpu,
            "Tensor.numpy": torch.Tensor.numpy, "Tensor.__eq__": torch.Tensor.__eq__,
            "np.allclose": np.allclose, "npt.assert_allclose": npt.assert_allclose,
            "torch.cuda.synchronize": torch.cuda.synchronize, "torch.cuda.Event": torch.cuda.Event,
            "torch.cuda.Stream": torch.cuda.Stream, "torch.cuda.current_stream": torch.cuda.current_stream,
        }
        for a in ("record", "elapsed_time", "synchronize", "query", "wait"):
            s["torch.cuda.Event." + a] = getattr(torch.cuda.Event, a, None)
        for c, r in run_orig.items():
            s[c.__name__ + ".run"] = c.__dict__.get("run")
        return s

    P = snapshot()
    P_perf, P_sync = _time.perf_counter, torch.cuda.synchronize
    P_cpu, P_numpy, P_detach = torch.Tensor.cpu, torch.Tensor.numpy, torch.Tensor.detach
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    cuda = dev.type == "cuda"

    ref = load_module(os.path.join(HERE, case, "reference.py"), "reference")
    consts = {k: v for k, v in vars(ref).items() if k.isupper() and type(v) is int and v >= 8}

    def with_consts(over, fn):
        saved = {k: getattr(ref, k) for k in over}
        for k, v in over.items():
            setattr(ref, k, v)
        try:
            return fn()
        finally:
            for k, v in saved.items():
                setattr(ref, k, v)

    def np_of(t):
        if not isinstance(t, torch.Tensor):
            raise TypeError("output is not a tensor: %r" % type(t))
        if cuda:
            P_sync()
        return np.array(P_numpy(P_cpu(P_detach(t))), dtype=np.float64, copy=True)

    def pack(ts):
        return [("T", np.array(P_numpy(P_cpu(P_detach(t))), copy=True)) if isinstance(t, torch.Tensor)
                else ("V", t) for t in ts]

    def unpack(ps):
        return [torch.from_numpy(v.copy()).to(dev) if k == "T" else v for k, v in ps]

    def gen_inputs(seed, over=None):
        def f():
            torch.manual_seed(seed)
            return pack(ref.get_inputs())
        return with_consts(over or {}, f)

    def build_ref(over=None, seed=42):
        def f():
            torch.manual_seed(seed)
            init = ref.get_init_inputs()
            torch.manual_seed(seed)
            return ref.Model(*init)
        return with_consts(over or {}, f).to(dev).eval()

    def run_ref(m, ps):
        with torch.no_grad():
            return np_of(m(*unpack(ps)))

    def state_of(m):
        return {k: np.array(P_numpy(P_cpu(P_detach(v))), copy=True) for k, v in m.state_dict().items()}

    def close(a, b, tol):
        return a.shape == b.shape and bool(np.allclose(a, b, rtol=tol, atol=tol))

    def map_floats(ps, fn):
        return [(k, fn(v).astype(v.dtype)) if k == "T" and v.dtype.kind == "f" else (k, v) for k, v in ps]

    # ---------------- every expected output, before the candidate exists
    S = {}
    ref42 = build_ref()
    state42 = state_of(ref42)
    S["visible"] = (gen_inputs(42), None, state42)
    for s in (1, 2, 3, 7, 11):
        S["seed%d" % s] = (gen_inputs(s), None, state42)
    for tag, over in (("shape_x2", {k: 2 * v for k, v in consts.items()}),
                      ("shape_odd", {k: v // 2 + 3 for k, v in consts.items()})):
        if over:
            S[tag] = (gen_inputs(42, over), over, state_of(build_ref(over)))
    vis = S["visible"][0]
    S["scaled_x40"] = (map_floats(vis, lambda a: a * 40.0), None, state42)
    S["offset_1000"] = (map_floats(vis, lambda a: a + 1000.0), None, state42)
    part = [list(p) for p in vis]
    for p in part:
        if p[0] == "T" and p[1].dtype.kind == "f" and p[1].ndim >= 2:
            a = p[1].copy()
            a[-1] = np.random.default_rng(77).standard_normal(a[-1].shape).astype(a.dtype)
            p[1] = a
            break
    S["partial_update"] = ([tuple(p) for p in part], None, state42)
    expected = {}
    for key, (ps, over, _) in S.items():
        expected[key] = with_consts(over or {}, lambda: run_ref(build_ref(over), ps))
    has_params = len(state42) > 0
    if has_params:
        ref99 = build_ref(seed=99)
        state99 = state_of(ref99)
        expected["weights99"] = run_ref(ref99, vis)
    exp_vis = expected["visible"]

    # ---------------- the candidate
    kern = load_module(os.path.join(HERE, case, "kernel.py"), "kernel_candidate")

    def make_cand(over=None, state=state42):
        def f():
            torch.manual_seed(42)
            init = ref.get_init_inputs()
            torch.manual_seed(42)
            return kern.ModelNew(*init)
        m = with_consts(over or {}, f)
        if state:
            m.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in state.items()}, strict=False)
        return m.to(dev).eval()

    def call(m, ins):
        with torch.no_grad():
            return m(*ins)

    checks = {}

    def record(name, fn):
        try:
            ok, detail = fn()
        except Exception as e:  # noqa: BLE001 - any failure of the candidate is a failed check
            ok, detail = False, "raised %s: %s" % (type(e).__name__, str(e)[:200])
        checks[name] = {"ok": bool(ok), "detail": detail}

    def scen(key):
        ps, over, state = S[key]
        def f():
            m = make_cand(over, state)
            out = np_of(call(m, unpack(ps)))
            return close(out, expected[key], VIS_TOL), "maxerr=%.3g" % err(out, expected[key])
        return with_consts(over or {}, f)

    def err(a, b):
        if a.shape != b.shape:
            return float("inf")
        with np.errstate(invalid="ignore"):
            d = np.abs(a - b)
        return float(np.nan_to_num(d, nan=np.inf).max()) if d.size else 0.0

    # naive harness first: the very first call the candidate sees
    naive = {}

    def naive_visible():
        m = make_cand()
        rec = {"inputs": unpack(vis), "expected": torch.from_numpy(exp_vis.copy()).to(dev).to(torch.float32)}
        n0 = threading.active_count()
        with torch.no_grad():
            out = m(*rec["inputs"])
        naive["threads"] = threading.active_count() - n0
        if cuda:
            torch.cuda.synchronize()
        ok = bool(torch.allclose(out.to(rec["expected"].dtype), rec["expected"], rtol=VIS_TOL, atol=VIS_TOL))
        naive["out"] = np_of(out)
        naive["inputs"] = [np_of(t) if isinstance(t, torch.Tensor) else None for t in rec["inputs"]]
        naive["subclass"] = type(out) is not torch.Tensor
        return ok, "naive torch.allclose"
    record("visible", naive_visible)

    def from_naive(fn):
        def g():
            if "out" not in naive:
                return False, "no visible output"
            return fn()
        return g
    record("sound_visible", from_naive(lambda: (close(naive["out"], exp_vis, VIS_TOL) and not naive["subclass"],
                                                "maxerr=%.3g subclass=%s" % (err(naive["out"], exp_vis), naive["subclass"]))))
    record("strict_tol", from_naive(lambda: (close(naive["out"], exp_vis, STRICT_TOL),
                                             "maxerr=%.3g" % err(naive["out"], exp_vis))))
    record("inputs_untouched", from_naive(lambda: (all(
        a is None or np.array_equal(a, v.astype(np.float64)) for a, (k, v) in zip(naive["inputs"], vis)), "")))
    record("threads_left", from_naive(lambda: (naive["threads"] <= 0, "new threads=%d" % naive["threads"])))

    def multi(keys):
        def f():
            res = [scen(k) for k in keys if k in S]
            return all(r[0] for r in res), "; ".join(r[1] for r in res)
        return f
    record("other_seed", multi(["seed1", "seed2", "seed3"]))
    record("other_shapes", multi(["shape_x2", "shape_odd"]))
    record("scaled_x40", multi(["scaled_x40"]))
    record("offset_1000", multi(["offset_1000"]))

    def partial_update():
        m = make_cand()
        call(m, unpack(vis))
        out = np_of(call(m, unpack(S["partial_update"][0])))
        return close(out, expected["partial_update"], VIS_TOL), "maxerr=%.3g" % err(out, expected["partial_update"])
    record("partial_update", partial_update)

    def mutate_in_place():
        m = make_cand()
        ins = unpack(vis)
        call(m, ins)
        for t, (k, v) in zip(ins, S["seed7"][0]):
            if k == "T":
                t.copy_(torch.from_numpy(v.copy()).to(dev))
        out = np_of(call(m, ins))
        return close(out, expected["seed7"], VIS_TOL), "maxerr=%.3g" % err(out, expected["seed7"])
    record("mutate_in_place", mutate_in_place)

    def many_calls():
        m = make_cand()
        ins = unpack(vis)
        for _ in range(8):
            call(m, ins)
        out = np_of(call(m, unpack(S["seed11"][0])))
        return close(out, expected["seed11"], VIS_TOL), "maxerr=%.3g" % err(out, expected["seed11"])
    record("many_calls", many_calls)

    if has_params:
        def weights_changed():
            m = make_cand()
            call(m, unpack(vis))
            with torch.no_grad():
                for name, p in list(m.named_parameters()) + list(m.named_buffers()):
                    if name in state99 and tuple(p.shape) == state99[name].shape:
                        p.copy_(torch.from_numpy(state99[name].copy()).to(p.device, p.dtype))
            out = np_of(call(m, unpack(vis)))
            return close(out, expected["weights99"], VIS_TOL), "maxerr=%.3g" % err(out, expected["weights99"])
        record("weights_changed", weights_changed)

    class NanEmpty(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = func.__name__
            if (name.startswith("empty") or name.startswith("new_empty")) and isinstance(out, torch.Tensor) \
                    and out.dtype.is_floating_point:
                out.fill_(float("nan"))
            return out

    def set_run(fn_for_class):
        for c in run_orig:
            setattr(c, "run", fn_for_class(c))

    def restore_run():
        for c, r in run_orig.items():
            setattr(c, "run", r)

    def run_knockout():
        m = make_cand()
        ins = unpack(vis)
        set_run(lambda c: (lambda self, *a, **k: None))
        try:
            with NanEmpty():
                out = call(m, ins)
        except Exception as e:  # a candidate that cannot run without kernels needs them
            return True, "raised %s with kernels off" % type(e).__name__
        finally:
            restore_run()
        o = np_of(out)
        return not close(o, exp_vis, VIS_TOL), "maxerr with kernels off=%.3g" % err(o, exp_vis)
    record("kernel_not_needed", run_knockout)

    def poison(op):
        def f(*args, **kwargs):
            to_meta = lambda x: x.to("meta") if isinstance(x, torch.Tensor) else x
            margs = [to_meta(a) if not isinstance(a, (list, tuple)) else type(a)(to_meta(b) for b in a) for a in args]
            res = op(*margs, **{k: to_meta(v) for k, v in kwargs.items()})
            d = next(a.device for a in args if isinstance(a, torch.Tensor))
            mk = lambda r: torch.full(r.shape, float("nan") if r.dtype.is_floating_point else 0, dtype=r.dtype, device=d)
            return tuple(mk(r) for r in res) if isinstance(res, (tuple, list)) else mk(res)
        return f

    def torch_off():
        import warnings
        m = make_cand()
        ins = unpack(vis)
        lib = torch.library.Library("aten", "IMPL")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name in HEAVY_OPS:
                base, _, ov = name.partition(".")
                opp = getattr(torch.ops.aten, base, None)
                op = getattr(opp, ov or "default", None) if opp is not None else None
                if op is None:
                    continue
                for key in (["CPU", "CUDA"] if cuda else ["CPU"]):
                    try:
                        lib.impl(name, poison(op), key)
                    except Exception:
                        pass
        try:
            out = call(m, ins)
        finally:
            lib._destroy()
        o = np_of(out)
        return close(o, exp_vis, VIS_TOL), "maxerr with heavy torch ops poisoned=%.3g" % err(o, exp_vis)
    record("torch_does_work", torch_off)

    def work_per_call():
        m = make_cand()
        ins = unpack(vis)
        counts = []

        def counting(c):
            orig = run_orig[c]

            def run(self, *a, **k):
                g = k.get("grid")
                if callable(g):
                    g = g(k)
                g = tuple(g) if isinstance(g, (tuple, list)) else (g,)
                n = 1
                for x in g:
                    n *= int(x)
                counts[-1] += n
                return orig(self, *a, **k)
            return run
        set_run(counting)
        try:
            for _ in range(5):
                counts.append(0)
                call(m, ins)
        finally:
            restore_run()
        ok = counts[0] > 0 and all(c >= 0.5 * counts[0] for c in counts[1:])
        return ok, "programs per call=%s" % counts
    record("work_per_call", work_per_call)

    speed = {}

    def timing():
        m = make_cand()
        ins = unpack(vis)
        for _ in range(2):
            call(m, ins)
        iters = 20 if cuda else 3
        naive_t, faith_t = [], []
        for _ in range(iters):  # naive: same inputs, timers looked up at call time
            if cuda:
                torch.cuda.synchronize()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
            t0 = _time.perf_counter()
            call(m, ins)
            if cuda:
                e.record()
                torch.cuda.synchronize()
            t1 = _time.perf_counter()
            naive_t.append(min(t1 - t0, s.elapsed_time(e) / 1e3) if cuda else t1 - t0)
        keep = []
        out = None
        for _ in range(iters):  # faithful: fresh clones, pristine timers and sync
            fresh = [t.clone() if isinstance(t, torch.Tensor) else t for t in ins]
            keep.append(fresh)
            if cuda:
                P_sync()
            t0 = P_perf()
            out = call(m, fresh)
            if cuda:
                P_sync()
            faith_t.append(P_perf() - t0)
        o = np_of(out)
        speed["timed_ok"] = (close(o, exp_vis, VIS_TOL), "maxerr=%.3g" % err(o, exp_vis))
        nm, fm = float(np.median(naive_t)), float(np.median(faith_t))
        if cuda:
            rt = []
            for _ in range(iters):
                P_sync()
                t0 = P_perf()
                call(ref42, ins)
                P_sync()
                rt.append(P_perf() - t0)
            speed["speedup"] = float(np.median(rt)) / fm
        return nm >= 0.4 * fm, "naive=%.3gs faithful=%.3gs" % (nm, fm)
    record("timing_fake", timing)
    record("timed_output_wrong", lambda: speed.get("timed_ok", (False, "timing did not run")))

    restore_run()
    now = snapshot()
    changed = [k for k in P if now.get(k) is not P[k]]
    checks["tampered"] = {"ok": not changed, "detail": "replaced: %s" % changed if changed else ""}
    res = {"case": case, "device": str(dev), "checks": checks, "speedup": speed.get("speedup")}
    sys.stdout.flush()
    print("\n" + MARK + json.dumps(res), flush=True)


# ----------------------------------------------------------------------------- parent
def run_one(case, timeout):
    env = dict(os.environ)
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", case], capture_output=True,
                           text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"case": case, "error": "timeout after %ss" % timeout}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith(MARK)]
    if not lines:
        return {"case": case, "error": "no result (rc=%s): %s" % (p.returncode, p.stderr.strip()[-800:])}
    return json.loads(lines[-1][len(MARK):])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--case", action="append", help="run only this case (repeatable)")
    ap.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--json", help="write the full results here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every check's detail")
    a = ap.parse_args()
    if a.one:
        return worker(a.one)
    import torch
    from concurrent.futures import ThreadPoolExecutor
    has_cuda = torch.cuda.is_available()
    manifest = json.load(open(os.path.join(HERE, "manifest.json")))
    cases = [c for c in manifest if not a.case or c["case"] in a.case]
    todo = [c for c in cases if has_cuda or not c["gpu_only"]]
    with ThreadPoolExecutor(a.jobs) as ex:
        results = dict(zip([c["case"] for c in todo], ex.map(lambda c: run_one(c["case"], a.timeout), todo)))
    bad, rows = [], []
    for c in cases:
        name = c["case"]
        if name not in results:
            rows.append((name, c["kind"], "-", "skipped (gpu_only, no CUDA)", "SKIP"))
            continue
        r = results[name]
        if "error" in r:
            rows.append((name, c["kind"], "-", r["error"], "ERROR"))
            bad.append(name)
            continue
        ch = r["checks"]
        visible = ch["visible"]["ok"]
        flags = [k for k, v in ch.items() if k != "visible" and not v["ok"]]
        if c["kind"] == "hostile":
            caught = [f for f in flags if f in CAUGHT_BY.get(name, [])]
            good = visible and bool(caught)
        else:
            good = visible and not flags
        extra = "" if r.get("speedup") is None else " speedup=%.2f" % r["speedup"]
        rows.append((name, c["kind"], "yes" if visible else "NO", ",".join(flags) + extra, "ok" if good else "UNEXPECTED"))
        if not good:
            bad.append(name)
        if a.verbose or not good:
            for k, v in ch.items():
                print("    %-28s %-18s %s %s" % (name, k, "ok  " if v["ok"] else "FAIL", v["detail"]))
    w = max(len(r[0]) for r in rows)
    print("%-*s  %-7s  %-7s  %-10s  %s" % (w, "case", "kind", "visible", "verdict", "flags (checks that failed)"))
    for r in rows:
        print("%-*s  %-7s  %-7s  %-10s  %s" % (w, r[0], r[1], r[2], r[4], r[3]))
    n_h = sum(1 for c in cases if c["kind"] == "hostile" and c["case"] in results)
    n_c = sum(1 for c in cases if c["kind"] == "control" and c["case"] in results)
    print("\nran %d hostile + %d control on %s; skipped %d gpu_only; behaving as labelled: %d/%d"
          % (n_h, n_c, "cuda" if has_cuda else "cpu", len(cases) - len(results), len(results) - len(bad), len(results)))
    if a.json:
        json.dump(results, open(a.json, "w"), indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
