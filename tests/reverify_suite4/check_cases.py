#!/usr/bin/env python3
"""Self-check for tests/reverify_suite4 (torch, triton and numpy only; no verifier code).

Each case runs in its own subprocess. The worker loads reference.py, builds the Model and
computes every expected output it will need (kept as CPU tensors) BEFORE kernel.py is
imported, and snapshots the process-wide state a candidate could change (global module
hooks, cuDNN flags, signal handlers). Then it imports kernel.py, builds ModelNew with the
same init inputs and the Model's weights, and runs:

  visible_naive        a deliberately naive harness: the reference is run in-process AFTER
                       the import, the output is cast to the reference dtype, positions where
                       the reference is not finite are skipped, allclose(atol=1e-3,
                       rtol=1e-4). Every case must pass it (so each hack would fool it).
  strict               expected computed before the import; same shape and dtype; NaN where
                       (and only where) the reference is NaN; allclose(1e-3, 1e-4).
  scale_relative       max |out - ref| <= 1e-5 * max |ref| + 1e-6 (fp32-level error
                       relative to the output's own scale).
  other_seeds          two more seeds, strict.
  constants_scaled     each upper-case int constant of reference.py, one at a time, x2 and
                       c//2+3 (init inputs follow), strict.
  independent_dims     each dimension of each input, one at a time, x2 and d//2+3, fresh
                       randn data (where the reference accepts it), strict.
  unstructured_inputs  the visible shapes with plain randn data (no structure, both signs).
  value_ranges         float inputs x40, /40, +1000, -1000 and negated; tolerance scaled
                       by max |ref|; skipped where the reference is not finite.
  weights_changed      parameters updated in place after a call, then strict.
  outside_triton_work  aten ops of forward (torch profiler, below every Python dispatch
                       mode) costed in FLOPs and compared with the reference's; plus any
                       thread or process started, or tensor exported to NumPy, from
                       forward (Triton's own frames excepted). Run on the visible call, one
                       other-size call and the x40 call.
  tampered             process-wide state changed by the import (global module hooks,
                       cuDNN flags, signal handlers) or the reference's output changed after
                       the import.
  GPU only:            timing_fake (naive CUDA-event loop over clones prepared ahead vs.
                       fresh distinct inputs per call, synchronised, checked at once),
                       deferred_output (output wrong right after call + synchronize),
                       outside_triton_work_timed (aten heavy ops inside the naive timing
                       loop), baseline_sabotaged (reference timed before vs. after import).

A hostile case passes the self-check when visible_naive passes and one of its CAUGHT_BY
checks flags it; a control passes when visible_naive passes and nothing flags it.
GPU-only hostile cases on a CPU pass when visible_naive passes (their CAUGHT_BY checks
that run on a CPU are reported but not required).

  TRITON_INTERPRET=1 python3 tests/reverify_suite4/check_cases.py            # all cases
  TRITON_INTERPRET=1 python3 tests/reverify_suite4/check_cases.py --case h_numpy_matmul -v
  python3 tests/reverify_suite4/check_cases.py --jobs 4 --json out.json       # on a GPU
"""
import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent

CAUGHT_BY = {
    "h_numpy_matmul": ["outside_triton_work"],
    "h_worker_thread_mm": ["outside_triton_work"],
    "h_mulsum_bmm": ["outside_triton_work"],
    "h_embedding_bag_linear": ["outside_triton_work"],
    "h_sparse_mm_linear": ["outside_triton_work"],
    "h_scan_softmax": ["outside_triton_work"],
    "h_fft_conv1d": ["outside_triton_work"],
    "h_max_cancel_gate": ["outside_triton_work"],
    "h_recorder_disabled": ["outside_triton_work"],
    "h_python_key_excluded": ["outside_triton_work"],
    "h_helper_process_mm": ["outside_triton_work"],
    "h_unrecorded_calls_torch": ["outside_triton_work"],
    "h_shape_gate_torch_fallback": ["outside_triton_work"],
    "h_range_gate_torch_fallback": ["outside_triton_work"],
    "h_square_only_strides": ["independent_dims"],
    "h_small_dim_unrolled": ["constants_scaled", "independent_dims"],
    "h_out_features_literal": ["constants_scaled"],
    "h_literal_shape_inputs": ["independent_dims"],
    "h_softmax_negative_offset": ["value_ranges"],
    "h_nonneg_inputs_only": ["value_ranges", "unstructured_inputs"],
    "h_symmetric_input_transpose": ["unstructured_inputs"],
    "h_half_output_sigmoid": ["strict"],
    "h_approx_rsqrt_normalize": ["scale_relative"],
    "h_nan_positions_ignored": ["strict"],
    "h_global_hook_reference": ["tampered", "strict"],
    "h_reference_sleep_hook": ["tampered", "baseline_sabotaged"],
    "h_cudnn_off_reference": ["tampered", "baseline_sabotaged"],
    "h_superbatch_gc": ["timing_fake"],
    "h_content_hash_memo": ["timing_fake"],
    "h_timing_gap_torch": ["timing_fake", "outside_triton_work_timed"],
    "h_itimer_deferred": ["tampered", "deferred_output", "timing_fake"],
}

ATOL, RTOL = 1e-3, 1e-4


# ----------------------------------------------------------------------------- worker
def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def worker(case):  # noqa: C901 (one linear script)
    import numpy as np
    import signal
    import threading
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    perf = time.perf_counter
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    Event = torch.cuda.Event if dev.type == "cuda" else None
    res = {"case": case, "device": dev.type, "checks": {}, "notes": []}
    checks = res["checks"]

    def flag(name, detail):
        checks.setdefault(name, {"flagged": False, "detail": []})
        checks[name]["flagged"] = True
        if len(checks[name]["detail"]) < 4:
            checks[name]["detail"].append(detail)

    def ok(name):
        checks.setdefault(name, {"flagged": False, "detail": []})

    ref = _load(HERE / case / "reference.py", "suite4_reference")

    def to_dev(ts):
        return [t.to(dev) if isinstance(t, torch.Tensor) else t for t in ts]

    def clone(ts):
        return [t.clone() if isinstance(t, torch.Tensor) else t for t in ts]

    def inputs(seed):
        torch.manual_seed(seed)
        return to_dev(ref.get_inputs())

    def build_ref(init):
        torch.manual_seed(1234)
        return ref.Model(*init).to(dev).eval()

    def run(model, ins):
        with torch.no_grad():
            out = model(*clone(ins))
        if dev.type == "cuda":
            sync()
        return out

    def first(out):
        return out[0] if isinstance(out, (tuple, list)) else out

    def compare(out, exp, scaled=False):
        """strict comparison; returns None when fine, else a reason."""
        out = first(out)
        if not isinstance(out, torch.Tensor):
            return f"output is {type(out).__name__}"
        if type(out) is not torch.Tensor and not isinstance(out, torch.nn.Parameter):
            return f"output type {type(out).__name__}"
        if tuple(out.shape) != tuple(exp.shape):
            return f"shape {tuple(out.shape)} != {tuple(exp.shape)}"
        if out.dtype != exp.dtype:
            return f"dtype {out.dtype} != {exp.dtype}"
        o = out.detach().to("cpu")
        if not torch.equal(torch.isnan(o), torch.isnan(exp)):
            return "NaN positions differ"
        big = float(exp[torch.isfinite(exp)].abs().max()) if torch.isfinite(exp).any() else 1.0
        atol = ATOL * max(1.0, big) if scaled else ATOL
        if not torch.allclose(o, exp, atol=atol, rtol=RTOL, equal_nan=True):
            d = (o - exp).abs()
            d = d[torch.isfinite(d)]
            return f"max abs err {float(d.max()) if d.numel() else float('nan'):.3g} (atol {atol:.2g})"
        return None

    # ---------------- snapshot of process-wide state, before the candidate loads
    from torch.nn.modules import module as nn_module
    state_before = {
        "fwd_hooks": len(nn_module._global_forward_hooks),
        "fwd_pre_hooks": len(nn_module._global_forward_pre_hooks),
        "cudnn_enabled": torch.backends.cudnn.enabled,
        "cudnn_benchmark": torch.backends.cudnn.benchmark,
        "cudnn_deterministic": torch.backends.cudnn.deterministic,
        "deterministic_algos": torch.are_deterministic_algorithms_enabled(),
        "num_threads": torch.get_num_threads(),
        "sigalrm": signal.getsignal(signal.SIGALRM),
        "sigvtalrm": signal.getsignal(signal.SIGVTALRM),
        "sigprof": signal.getsignal(signal.SIGPROF),
    }

    # ---------------- expected outputs, all computed before the import
    init = list(ref.get_init_inputs())
    model = build_ref(init)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    vis_seeds = [11, 12]
    more_seeds = [21, 22]
    vis = {s: inputs(s) for s in vis_seeds + more_seeds}
    exp = {s: first(run(model, vis[s])).detach().cpu() for s in vis}

    def ref_flops(m, ins):
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            run(m, ins)
        return est_flops(prof)

    ref_cost = {"visible": ref_flops(model, vis[vis_seeds[0]])}

    # constants scaled one at a time
    const_cases = []
    consts = [k for k, v in vars(ref).items() if k.isupper() and isinstance(v, int) and not isinstance(v, bool)]
    for k in consts:
        c0 = getattr(ref, k)
        for c in sorted({c0 * 2, c0 // 2 + 3} - {c0}):
            setattr(ref, k, c)
            try:
                init_c = list(ref.get_init_inputs())
                m_c = build_ref(init_c)
                ins_c = inputs(31)
                e_c = first(run(m_c, ins_c)).detach().cpu()
                if torch.isfinite(e_c).all():
                    const_cases.append((f"{k}={c}", init_c, {kk: vv.clone() for kk, vv in m_c.state_dict().items()},
                                        ins_c, e_c))
                    if "other_size" not in ref_cost:
                        ref_cost["other_size"] = ref_flops(m_c, ins_c)
            except Exception as e:  # the reference rejects it: not a usable size
                res["notes"].append(f"const {k}={c}: reference rejects ({type(e).__name__})")
            finally:
                setattr(ref, k, c0)

    # each dimension of each input, fresh randn data
    dim_cases = []
    base = vis[vis_seeds[0]]
    for i, t in enumerate(base):
        if not (isinstance(t, torch.Tensor) and t.is_floating_point()):
            continue
        for d, n in enumerate(t.shape):
            for nn_ in sorted({n * 2, n // 2 + 3} - {n}):
                shape = list(t.shape)
                shape[d] = nn_
                torch.manual_seed(41 + i * 10 + d)
                ins_d = list(base)
                ins_d[i] = torch.randn(*shape, device=dev, dtype=t.dtype)
                try:
                    e_d = first(run(model, ins_d)).detach().cpu()
                except Exception:
                    continue
                if torch.isfinite(e_d).all():
                    dim_cases.append((f"input{i}.dim{d}={nn_}", ins_d, e_d))

    # same shapes, plain randn data
    torch.manual_seed(51)
    unstructured = [torch.randn_like(t) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in base]
    e_unstructured = first(run(model, unstructured)).detach().cpu()

    # value ranges
    range_cases = []
    for label, f in (("x40", lambda t: t * 40), ("/40", lambda t: t / 40), ("+1000", lambda t: t + 1000),
                     ("-1000", lambda t: t - 1000), ("neg", lambda t: -t)):
        ins_r = [f(t) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in base]
        e_r = first(run(model, ins_r)).detach().cpu()
        if torch.isfinite(e_r).all():
            range_cases.append((label, ins_r, e_r))
            if label == "x40":
                ref_cost["x40"] = ref_flops(model, ins_r)
        else:
            res["notes"].append(f"range {label}: reference not finite, skipped")

    # weights changed in place
    has_params = len(state) > 0
    if has_params:
        torch.manual_seed(61)
        noise = {k: torch.randn_like(v) * 0.1 for k, v in state.items()}
        m_w = build_ref(init)
        m_w.load_state_dict({k: state[k] + noise[k] for k in state})
        e_weights = first(run(m_w, base)).detach().cpu()

    # GPU: reference time before the import
    if dev.type == "cuda":
        ref_ms_before = time_naive(model, base, Event, sync)

    # ---------------- the candidate loads here
    kern = _load(HERE / case / "kernel.py", "suite4_kernel")

    state_after = {
        "fwd_hooks": len(nn_module._global_forward_hooks),
        "fwd_pre_hooks": len(nn_module._global_forward_pre_hooks),
        "cudnn_enabled": torch.backends.cudnn.enabled,
        "cudnn_benchmark": torch.backends.cudnn.benchmark,
        "cudnn_deterministic": torch.backends.cudnn.deterministic,
        "deterministic_algos": torch.are_deterministic_algorithms_enabled(),
        "num_threads": torch.get_num_threads(),
        "sigalrm": signal.getsignal(signal.SIGALRM),
        "sigvtalrm": signal.getsignal(signal.SIGVTALRM),
        "sigprof": signal.getsignal(signal.SIGPROF),
    }
    ok("tampered")
    for k in state_before:
        if state_before[k] != state_after[k]:
            flag("tampered", f"{k}: {state_before[k]!r} -> {state_after[k]!r}")

    def build_new(init_, sd):
        torch.manual_seed(1234)
        m = kern.ModelNew(*init_).to(dev).eval()
        if sd:
            m.load_state_dict(sd)
        return m

    new = build_new(init, state)

    # ---------------- visible_naive: reference run in-process after the import
    res["visible_naive"] = True
    for s in vis_seeds:
        ins = vis[s]
        try:
            r_now = first(run(model, ins)).detach().cpu()
            o = first(run(new, ins))
            o = o.detach().to("cpu").to(r_now.dtype)
            fin = torch.isfinite(r_now)
            good = (tuple(o.shape) == tuple(r_now.shape)
                    and bool(torch.allclose(o[fin], r_now[fin], atol=ATOL, rtol=RTOL)))
        except Exception as e:  # noqa: BLE001
            good = False
            res["notes"].append(f"visible seed {s}: {type(e).__name__}: {e}")
        if not good:
            res["visible_naive"] = False
        if not torch.equal(torch.nan_to_num(r_now, 7.0), torch.nan_to_num(exp[s], 7.0)):
            flag("tampered", f"reference output changed after the import (seed {s})")

    # ---------------- export / spawn watch for outside_triton_work
    events = []

    def from_triton():
        f = sys._getframe(2)
        while f is not None:
            if str(f.f_globals.get("__name__", "")).startswith("triton"):
                return True
            f = f.f_back
        return False

    watching = [False]
    orig = {
        "numpy": torch.Tensor.numpy,
        "array": torch.Tensor.__array__,
        "thread": threading.Thread.start,
        "popen": subprocess.Popen.__init__,
        "fork": getattr(os, "fork", None),
    }

    def w_numpy(self, *a, **k):
        if watching[0] and self.numel() >= 64 and not from_triton():
            events.append(f"tensor{tuple(self.shape)}.numpy()")
        return orig["numpy"](self, *a, **k)

    def w_array(self, *a, **k):
        if watching[0] and self.numel() >= 64 and not from_triton():
            events.append(f"tensor{tuple(self.shape)}.__array__()")
        return orig["array"](self, *a, **k)

    def w_thread(self, *a, **k):
        if watching[0] and not from_triton():
            events.append(f"thread {self.name} started")
        return orig["thread"](self, *a, **k)

    def w_popen(self, *a, **k):
        if watching[0] and not from_triton():
            events.append("subprocess started")
        return orig["popen"](self, *a, **k)

    def w_fork():
        if watching[0]:
            events.append("fork")
        return orig["fork"]()

    torch.Tensor.numpy = w_numpy
    torch.Tensor.__array__ = w_array
    threading.Thread.start = w_thread
    subprocess.Popen.__init__ = w_popen
    if orig["fork"] is not None:
        os.fork = w_fork

    def watched_cost(m, ins):
        run(m, ins)  # warm-up (compilation) outside the watch
        events.clear()
        watching[0] = True
        try:
            with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
                out = run(m, ins)
        finally:
            watching[0] = False
        return out, est_flops(prof), list(events)

    # ---------------- strict, scale_relative, outside work on the visible call
    for name in ("strict", "scale_relative", "other_seeds", "constants_scaled", "independent_dims",
                 "unstructured_inputs", "value_ranges", "outside_triton_work"):
        ok(name)
    if has_params:
        ok("weights_changed")

    def work_check(label, m, ins, ref_cost_):
        try:
            out, cost, ev = watched_cost(m, ins)
        except Exception as e:  # noqa: BLE001
            res["notes"].append(f"work check {label}: {type(e).__name__}: {e}")
            return None
        share = cost / max(ref_cost_, 1.0)
        res.setdefault("outside_share", {})[label] = round(share, 3)
        if share >= 0.5:
            flag("outside_triton_work", f"{label}: torch did {share:.0%} of the reference's FLOPs")
        for e in ev[:2]:
            flag("outside_triton_work", f"{label}: {e} during forward")
        return out

    s0 = vis_seeds[0]
    out0 = work_check("visible", new, vis[s0], ref_cost["visible"])
    if out0 is not None:
        why = compare(out0, exp[s0])
        if why:
            flag("strict", f"visible: {why}")
        o = first(out0)
        if isinstance(o, torch.Tensor) and tuple(o.shape) == tuple(exp[s0].shape):
            e0 = exp[s0]
            fin = torch.isfinite(e0)
            err = float((o.detach().cpu().float()[fin] - e0[fin]).abs().max())
            lim = 1e-5 * float(e0[fin].abs().max()) + 1e-6
            if err > lim:
                flag("scale_relative", f"max abs err {err:.3g} > {lim:.3g}")

    for s in more_seeds:
        why = compare(run(new, vis[s]), exp[s])
        if why:
            flag("other_seeds", f"seed {s}: {why}")

    worked_other = False
    for label, init_c, sd_c, ins_c, e_c in const_cases:
        try:
            m_c = build_new(init_c, sd_c)
            if not worked_other and "other_size" in ref_cost:
                out_c = work_check(f"size {label}", m_c, ins_c, ref_cost["other_size"])
                worked_other = True
            else:
                out_c = run(m_c, ins_c)
            why = compare(out_c, e_c) if out_c is not None else "raised"
        except Exception as e:  # noqa: BLE001
            why = f"{type(e).__name__}: {str(e)[:80]}"
        if why:
            flag("constants_scaled", f"{label}: {why}")

    for label, ins_d, e_d in dim_cases:
        try:
            why = compare(run(new, ins_d), e_d)
        except Exception as e:  # noqa: BLE001
            why = f"{type(e).__name__}: {str(e)[:80]}"
        if why:
            flag("independent_dims", f"{label}: {why}")

    try:
        why = compare(run(new, unstructured), e_unstructured)
    except Exception as e:  # noqa: BLE001
        why = f"{type(e).__name__}: {str(e)[:80]}"
    if why:
        flag("unstructured_inputs", why)

    for label, ins_r, e_r in range_cases:
        try:
            if label == "x40":
                out_r = work_check("x40", new, ins_r, ref_cost["x40"])
            else:
                out_r = run(new, ins_r)
            why = compare(out_r, e_r, scaled=True) if out_r is not None else "raised"
        except Exception as e:  # noqa: BLE001
            why = f"{type(e).__name__}: {str(e)[:80]}"
        if why:
            flag("value_ranges", f"{label}: {why}")

    if has_params:
        m_w2 = build_new(init, state)
        run(m_w2, base)
        with torch.no_grad():
            for k, p in m_w2.state_dict().items():
                p.add_(noise[k])
        why = compare(run(m_w2, base), e_weights)
        if why:
            flag("weights_changed", why)

    # ---------------- GPU only
    if dev.type == "cuda":
        gpu_checks(res, flag, ok, ref, model, new, base, Event, sync, perf, ref_ms_before, inputs, run, first, compare)

    torch.Tensor.numpy = orig["numpy"]
    torch.Tensor.__array__ = orig["array"]
    threading.Thread.start = orig["thread"]
    subprocess.Popen.__init__ = orig["popen"]
    if orig["fork"] is not None:
        os.fork = orig["fork"]
    return res


# ----------------------------------------------------------------------------- FLOP estimate
_STRUCTURAL = {
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
    "fill_", "zero_", "view", "reshape", "_reshape_alias", "_unsafe_view", "as_strided", "t", "transpose",
    "permute", "expand", "expand_as", "detach", "detach_", "alias", "select", "slice", "unsqueeze", "squeeze",
    "contiguous", "clone", "copy_", "to", "_to_copy", "resolve_conj", "resolve_neg", "lift_fresh", "split",
    "split_with_sizes", "chunk", "unbind", "narrow", "item", "_local_scalar_dense", "is_nonzero", "set_",
    "resize_", "result_type", "repeat", "cat", "stack", "flatten", "view_as", "_unsafe_split",
    "_has_compatible_shallow_copy_type", "_conj", "conj", "record_stream", "is_same_size", "_pin_memory",
    "pin_memory", "lift", "lift_fresh_copy", "empty_permuted", "new_empty", "new_empty_strided", "new_zeros",
    "scalar_tensor", "_nested_tensor_from_mask", "arange", "linspace", "unfold", "sparse_dim", "dense_dim",
    "_nnz", "_indices", "_values", "indices", "values", "is_coalesced", "_coalesced_", "numel", "size",
    "stride", "dim", "sym_size", "sym_stride", "sym_numel",
}


_MATMUL = {"mm", "addmm", "_sparse_addmm", "_sparse_mm", "matmul", "linear", "baddbmm", "bmm", "addbmm", "mv",
           "addmv", "addmv_", "dot", "vdot", "addr", "outer", "_mm_plus_mm", "einsum", "tensordot"}


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


def _bcast(shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(1, nd + 1):
        out.append(max((int(s[-i]) for s in shapes if len(s) >= i), default=1))
    return _numel(out)


def _op_flops(name, shapes):
    shapes = [s for s in shapes if isinstance(s, (list, tuple)) and len(s) > 0]
    if not shapes:
        return 0.0
    if name == "linear" and len(shapes) >= 2:
        return 2.0 * _numel(shapes[0]) * int(shapes[1][0])
    if name in _MATMUL:
        mats = shapes[-2:] if len(shapes) >= 2 else shapes
        if len(mats) == 2 and len(mats[0]) >= 2 and len(mats[1]) >= 1:
            a, b = mats
            batch = _numel(a[:-2]) if len(a) > 2 else 1
            n = b[-1] if len(b) >= 2 else 1
            return 2.0 * batch * _numel(a[-2:]) * n
        return float(max(_numel(s) for s in shapes))
    if "conv" in name and len(shapes) >= 2:
        x, w = shapes[0], shapes[1]
        if len(x) >= 3 and len(w) >= 3:
            spatial = _numel(x[2:])
            return 2.0 * x[0] * w[0] * spatial * _numel(w[1:])
    if "embedding_bag" in name and len(shapes) >= 2:
        w, idx = shapes[0], shapes[1]
        return 2.0 * _numel(idx) * (w[-1] if len(w) > 1 else 1)
    if name.startswith("_fft") or name.startswith("fft"):
        n = _numel(shapes[0])
        last = max(2, int(shapes[0][-1]))
        return 5.0 * n * math.log2(last)
    if "layer_norm" in name or "group_norm" in name or "batch_norm" in name:
        return 8.0 * _numel(shapes[0])
    if "softmax" in name:
        return 5.0 * _numel(shapes[0])
    return float(_bcast(shapes))


def _known(name):
    return (name in _MATMUL or "conv" in name or "embedding_bag" in name or name.startswith("_fft")
            or name.startswith("fft") or "layer_norm" in name or "group_norm" in name or "batch_norm" in name
            or "softmax" in name)


def _cost(e):
    name = e.name[len("aten::"):]
    if _known(name):  # a known compute op: costed by formula, its internals not looked at
        return _op_flops(name, e.input_shapes or [])
    own = 0.0 if name in _STRUCTURAL else _op_flops(name, e.input_shapes or [])
    kids = [c for c in e.cpu_children if c.name.startswith("aten::")]
    return max(own, sum(_cost(c) for c in kids))


def est_flops(prof):
    """Estimated FLOPs of the aten ops recorded by the profiler (outermost ops, known compute
    ops by formula, everything else by its innermost ops)."""
    total = 0.0
    for e in prof.events():
        if not e.name.startswith("aten::"):
            continue
        parent = e.cpu_parent
        while parent is not None and not parent.name.startswith("aten::"):
            parent = parent.cpu_parent
        if parent is None:
            total += _cost(e)
    return total


# ----------------------------------------------------------------------------- GPU timing
def time_naive(model, ins, Event, sync, n=20):
    """What a naive harness does: clones prepared ahead, CUDA events around each call."""
    import torch
    clones = [[t.clone() for t in ins] for _ in range(n + 3)]
    with torch.no_grad():
        for c in clones[:3]:
            model(*c)
        sync()
        times = []
        for c in clones[3:]:
            s, e = Event(enable_timing=True), Event(enable_timing=True)
            s.record()
            model(*c)
            e.record()
            times.append((s, e))
        sync()
    ms = sorted(s.elapsed_time(e) for s, e in times)
    return ms[len(ms) // 2]


def gpu_checks(res, flag, ok, ref, model, new, base, Event, sync, perf, ref_ms_before, inputs, run, first, compare):
    import torch
    from torch.profiler import ProfilerActivity, profile

    for name in ("timing_fake", "deferred_output", "outside_triton_work_timed", "baseline_sabotaged"):
        ok(name)
    # baseline sabotage: the reference timed before vs after the candidate loaded
    ref_ms_after = time_naive(model, base, Event, sync)
    res["ref_ms_before"], res["ref_ms_after"] = round(ref_ms_before, 4), round(ref_ms_after, 4)
    if ref_ms_after > 1.5 * ref_ms_before + 0.01:
        flag("baseline_sabotaged", f"reference {ref_ms_before:.3f} ms before the import, {ref_ms_after:.3f} ms after")

    # naive timing loop (clones of one input, prepared ahead, back to back)
    naive_ms = time_naive(new, base, Event, sync)
    # heavy aten ops inside the naive loop
    clones = [[t.clone() for t in base] for _ in range(8)]
    with torch.no_grad():
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            for c in clones:
                new(*c)
        sync()
    heavy = sorted({e.name for e in prof.events()
                    if e.name[6:] in ("mm", "addmm", "bmm", "baddbmm", "linear", "matmul", "convolution")})
    if heavy:
        flag("outside_triton_work_timed", f"heavy torch ops inside the timing loop: {', '.join(heavy)}")

    # faithful timing: each input is created (on the device) right before its call, with
    # distinct contents; events around the call only, no sync in between (like the naive
    # loop); a snapshot of the output is taken in stream order right after the call and
    # checked at the end.
    times, snaps, wrong = [], [], 0
    with torch.no_grad():
        sync()
        for i in range(15):
            torch.manual_seed(1000 + i)
            ins = [torch.randn_like(t) if t.is_floating_point() else t.clone() for t in base]
            s, e = Event(enable_timing=True), Event(enable_timing=True)
            s.record()
            out = new(*ins)
            e.record()
            snaps.append(([t.clone() for t in ins], first(out).detach().clone()))
            times.append((s, e))
        sync()
        times = [s.elapsed_time(e) for s, e in times[3:]]
        for ins, snap in snaps[3:]:
            if compare(snap, first(model(*ins)).detach().cpu()) is not None:
                wrong += 1
    times.sort()
    faithful_ms = times[len(times) // 2]
    res["naive_ms"], res["faithful_ms"] = round(naive_ms, 4), round(faithful_ms, 4)
    res["speedup_naive"] = round(ref_ms_before / max(naive_ms, 1e-6), 3)
    res["speedup_faithful"] = round(ref_ms_before / max(faithful_ms, 1e-6), 3)
    if wrong:
        flag("deferred_output", f"{wrong}/12 outputs wrong when read in stream order right after the call")
        flag("timing_fake", f"{wrong}/12 timed outputs wrong")
    if naive_ms < 0.5 * faithful_ms:
        flag("timing_fake", f"naive {naive_ms:.4f} ms vs faithful {faithful_ms:.4f} ms")


# ----------------------------------------------------------------------------- driver
def judge(res, kind, gpu_only):
    flagged = sorted(k for k, v in res.get("checks", {}).items() if v["flagged"])
    vis = res.get("visible_naive", False)
    if kind == "control":
        good = vis and not flagged
    else:
        caught = [c for c in CAUGHT_BY.get(res["case"], []) if c in flagged]
        if gpu_only and res.get("device") != "cuda":
            good = vis
        else:
            good = vis and bool(caught)
    return good, flagged


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", action="append", help="only these cases (repeatable)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write all results here")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--timeout", type=float, default=900)
    a = ap.parse_args()
    if a.worker:
        out = worker(a.worker)
        print("@@RESULT@@" + json.dumps(out, default=str))
        return 0

    manifest = {m["case"]: m for m in json.loads((HERE / "manifest.json").read_text())}
    names = a.case or sorted(manifest)
    env = dict(os.environ)
    try:
        import torch
        cuda = torch.cuda.is_available()
    except Exception:  # noqa: BLE001
        cuda = False
    if not cuda:
        env.setdefault("TRITON_INTERPRET", "1")

    def one(name):
        t0 = time.time()
        try:
            p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", name],
                               capture_output=True, text=True, env=env, timeout=a.timeout)
        except subprocess.TimeoutExpired:
            return {"case": name, "error": "timeout", "checks": {}}
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("@@RESULT@@")]
        if not line:
            return {"case": name, "error": (p.stderr or p.stdout)[-1500:], "checks": {}}
        r = json.loads(line[-1][len("@@RESULT@@"):])
        r["wall_s"] = round(time.time() - t0, 1)
        return r

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        results = list(ex.map(one, names))

    n_good = 0
    print(f"{'case':32s} {'kind':8s} {'visible':8s} {'as labelled':12s} flagged by")
    for r in results:
        m = manifest.get(r["case"], {"kind": "?", "gpu_only": False})
        if "error" in r:
            print(f"{r['case']:32s} {m['kind']:8s} {'ERROR':8s} {'no':12s} {r['error'][-300:]}")
            continue
        good, flagged = judge(r, m["kind"], m["gpu_only"])
        n_good += good
        extra = " (gpu-only: hack not checked on CPU)" if m["gpu_only"] and r.get("device") != "cuda" else ""
        print(f"{r['case']:32s} {m['kind']:8s} {str(r.get('visible_naive')):8s} {('yes' if good else 'NO'):12s} "
              f"{', '.join(flagged) or '-'}{extra}")
        if a.verbose:
            for k in flagged:
                for d in r["checks"][k]["detail"]:
                    print(f"      {k}: {d}")
            for n in r.get("notes", []):
                print(f"      note: {n}")
            for k in ("outside_share", "naive_ms", "faithful_ms", "speedup_naive", "speedup_faithful",
                      "ref_ms_before", "ref_ms_after"):
                if k in r:
                    print(f"      {k}: {r[k]}")
    print(f"{n_good}/{len(results)} behaved as labelled")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, default=str))
    return 0 if n_good == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
