#!/usr/bin/env python
"""Prove the label of every case in this folder by running it against its KernelBench v0.1 reference.

    python verify.py [--kernelbench PATH] [--only l01,c03] [--fit-iters N] [-v]

The KernelBench file defaults to $KERNELBENCH_V01_JSONL, else
/work/shared/data/kernelbench/kernelbench_v0.1.jsonl.  Exit status 1 if any label fails.

Everything runs on CPU in float64 (torch.set_default_dtype), modules in train mode (as KernelBench runs them).

Inputs.  The reference's module-level size constants are shrunk (REF_SIZES) and its own get_inputs() gives the
inputs; the case receives exactly the same tensors (reordered by the manifest's `input_map` where the case's
forward takes them in another order).  The case is constructed from its own get_init_inputs() after its
size constants are overwritten from the manifest's `case_consts` (a string is evaluated in the shrunk
reference's namespace, e.g. "features" or "input_shape[0]"; a number is used as is).

Probes (each a full input list): get_inputs() under several seeds, the same draw scaled by 3 and shifted by
+0.5, and one standard-normal draw at scales 0.1, 1 and 10.  Integer inputs (class labels) and +-1 targets are
kept from get_inputs(); probability inputs (KLDiv) are replaced by softmax(noise * scale) / sharpened p**3.
Scaled and shifted copies are what make homogeneity and shift arguments bite.  Two disjoint sets: FIT probes
(used by the optimiser below) and TEST probes (held out).  Every check reports the TEST probes; init/copied
checks also require the FIT probes.

Relative error per probe: ||case - ref|| / ||ref||; a different output shape counts as different.
"differs" means rel > DIFF_TOL (1e-3, ten times the audit's 1e-4 tolerance); "matches" means rel < MATCH_TOL.

A control passes when it matches on every probe with the reference's init AND with perturbed reference
parameters, copied into the case through `param_copy`.

A look-alike passes when it differs on every probe in each of:
  init      reference and case at their own (independent) inits;
  copied    reference parameters perturbed, then copied into the case where they correspond (`param_copy`);
  ref-init  reference at its init copied into the case;
  fit-case  the case's parameters optimised (L-BFGS, FIT probes) to reproduce the reference, from three starts:
            its init, the copied parameters, and an "identity" start (square weights = I, 1x1 convs = I,
            1-D weights = 1, biases = 0); checked on the TEST probes;
  fit-ref   (references with parameters) the reference's parameters optimised to reproduce the case.
Look-alikes whose output shape differs skip the fits: no parameter changes a shape.  Parameter-free pairs have
only the init check, which then is exact.  The written argument for each case is the manifest's `note`.

A sanity check also runs every parameter-free level-1 KernelBench problem (and the normalisation ones) on each
look-alike's probes: a look-alike must not coincide with another KernelBench problem at its init.
"""
import argparse
import copy
import json
import math
import os
import sys
import time
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_KB = "/work/shared/data/kernelbench/kernelbench_v0.1.jsonl"

DIFF_TOL = 1e-3
MATCH_TOL = 1e-9

_ACT = dict(batch_size=16, dim=48)
_MAP4 = dict(batch_size=4, features=8, dim1=6, dim2=6)
_RED = dict(batch_size=4, dim1=10, dim2=12)
_PAIR = dict(batch_size=16, input_shape=(24,))
REF_SIZES = {
    "19_ReLU": _ACT, "21_Sigmoid": _ACT, "22_Tanh": _ACT, "23_Softmax": _ACT, "24_LogSoftmax": _ACT,
    "25_Swish": _ACT, "26_GELU_": _ACT, "29_Softplus": _ACT, "88_MinGPTNewGelu": _ACT,
    "38_L1Norm_": _ACT, "39_L2Norm_": _ACT,
    "33_BatchNorm": _MAP4, "34_InstanceNorm": _MAP4, "37_FrobeniusNorm_": _MAP4,
    "36_RMSNorm_": dict(batch_size=4, features=12, dim1=6, dim2=5),
    "40_LayerNorm": dict(batch_size=4, features=6, dim1=5, dim2=4),
    "47_Sum_reduction_over_a_dimension": _RED, "48_Mean_reduction_over_a_dimension": _RED,
    "49_Max_reduction_over_a_dimension": _RED,
    "94_MSELoss": _PAIR, "96_HuberLoss": _PAIR, "98_KLDivLoss": _PAIR, "99_TripletMarginLoss": _PAIR,
    "95_CrossEntropyLoss": dict(batch_size=32, num_classes=10, input_shape=(10,)),
    "100_HingeLoss": dict(batch_size=24, input_shape=(24,)),  # broadcasting needs batch == width
    "97_ScaledDotProductAttention": dict(batch_size=2, num_heads=2, sequence_length=8, embedding_dimension=16),
    "99_Matmul_GELU_Softmax": dict(batch_size=16, in_features=32, out_features=24),
    "29_Matmul_Mish_Mish": dict(batch_size=16, in_features=24, out_features=24),
    "59_Matmul_Swish_Scaling": dict(batch_size=16, in_features=32, out_features=24),
    "14_Gemm_Divide_Sum_Scaling": dict(batch_size=16, input_size=32, hidden_size=24),
    "45_Gemm_Sigmoid_LogSumExp": dict(batch_size=16, input_size=32, hidden_size=24, output_size=20),
}
# per input: "float" (transformable), "keep" (labels, +-1 targets), "simplex" (probability rows)
INPUT_KINDS = {
    "95_CrossEntropyLoss": ["float", "keep"],
    "100_HingeLoss": ["float", "keep"],
    "98_KLDivLoss": ["simplex", "simplex"],
}
FIT_SPEC = dict(gi=[0, 1], noise_seed=10, scaled_seed=0, shift_seed=1)
TEST_SPEC = dict(gi=[2, 3, 4], noise_seed=11, scaled_seed=2, shift_seed=3)
NOISE_SCALES = (0.1, 1.0, 10.0)


# ----------------------------------------------------------------------------------------------- loading
def load_kernelbench(path):
    items = {}
    with open(path) as fh:
        for line in fh:
            d = json.loads(line)
            items[(int(d["level"]), d["name"])] = d["code"]
    return items


def exec_module(code, name, overrides=None, filename="<string>"):
    ns = {"__name__": name, "__file__": filename}
    exec(compile(code, filename, "exec"), ns)
    if overrides:
        ns.update(overrides)
    return ns


def build(ns, init_args, seed):
    torch.manual_seed(seed)
    m = ns["Model"](*copy.deepcopy(init_args))
    m.train()
    return m


# ------------------------------------------------------------------------------------------------ probes
def _gi(ns, seed):
    torch.manual_seed(seed)
    return list(ns["get_inputs"]())


def _transform(ns, kinds, seed, how, scale=None):
    base = _gi(ns, seed)
    out = []
    g = torch.Generator().manual_seed(1000 + seed)
    for t, kind in zip(base, kinds):
        if kind == "keep" or not torch.is_floating_point(t):
            out.append(t)
        elif how == "gi":
            out.append(t)
        elif kind == "simplex":
            if how == "noise":
                out.append(torch.softmax(torch.randn(t.shape, generator=g) * scale, dim=-1))
            else:  # scaled / shifted -> sharpened distribution
                s = t ** 3
                out.append(s / s.sum(dim=-1, keepdim=True))
        elif how == "scaled":
            out.append(t * 3.0)
        elif how == "shifted":
            out.append(t + 0.5)
        elif how == "noise":
            out.append(torch.randn(t.shape, generator=g) * scale)
    return out


def make_probes(ns, kinds, spec):
    probes = []
    for s in spec["gi"]:
        probes.append((f"gi{s}", _transform(ns, kinds, s, "gi")))
    probes.append((f"gi{spec['scaled_seed']}x3", _transform(ns, kinds, spec["scaled_seed"], "scaled")))
    probes.append((f"gi{spec['shift_seed']}+.5", _transform(ns, kinds, spec["shift_seed"], "shifted")))
    for sc in NOISE_SCALES:
        probes.append((f"n{sc:g}", _transform(ns, kinds, spec["noise_seed"], "noise", sc)))
    return probes


# --------------------------------------------------------------------------------------------- comparing
def run(model, inputs, input_map=None):
    args = inputs if input_map is None else [inputs[i] for i in input_map]
    return model(*args)


def rel_err(a, b):
    if not (torch.is_tensor(a) and torch.is_tensor(b)) or a.shape != b.shape:
        return math.inf
    a = a.detach().to(torch.float64)
    b = b.detach().to(torch.float64)
    if not (torch.isfinite(a).all() and torch.isfinite(b).all()):
        return math.nan
    return float((a - b).norm() / b.norm().clamp_min(1e-300))


def compare(case, ref, probes, input_map):
    errs = []
    with torch.no_grad():
        for _, x in probes:
            errs.append(rel_err(run(case, x, input_map), ref(*x)))
    return errs


# ---------------------------------------------------------------------------------------------- params
def get_param(model, name):
    obj = model
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def perturb(model, seed, amount=0.3):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in model.named_parameters():
            scale = max(float(p.abs().mean()), 0.1)
            p.add_(torch.randn(p.shape, generator=g) * amount * scale)


def copy_params(src, dst, mapping, reverse=False):
    """mapping: [src_name, dst_name, transform]; transform "T" transposes a 2-D tensor."""
    with torch.no_grad():
        for a, b, tr in mapping:
            if reverse:
                a, b = b, a
            s = get_param(src, a).detach()
            d = get_param(dst, b)
            if tr == "T":
                s = s.t()
            if s.shape != d.shape:
                s = s.reshape(d.shape)
            d.copy_(s)


def identity_start(model):
    with torch.no_grad():
        for name, p in model.named_parameters():
            leaf = name.split(".")[-1]
            if p.dim() == 2 and p.shape[0] == p.shape[1]:
                p.copy_(torch.eye(p.shape[0]))
            elif p.dim() == 4 and p.shape[0] == p.shape[1] and p.shape[2:] == (1, 1):
                p.copy_(torch.eye(p.shape[0]).view(*p.shape))
            elif leaf == "bias" or leaf == "b" or leaf == "beta":
                p.zero_()
            elif p.dim() == 1:
                p.fill_(1.0)


def n_params(model):
    return sum(p.numel() for p in model.parameters())


def fit(model, target_model, probes, iters, input_map_model=None, input_map_target=None):
    """Optimise `model`'s parameters so that model(probes) reproduces target_model(probes)."""
    with torch.no_grad():
        targets = [run(target_model, x, input_map_target).detach() for _, x in probes]
    params = [p for p in model.parameters()]
    for p in params:
        p.requires_grad_(True)
    best = {"loss": math.inf, "state": copy.deepcopy(model.state_dict())}

    def objective():
        total = 0.0
        for (_, x), t in zip(probes, targets):
            y = run(model, x, input_map_model)
            if y.shape != t.shape:
                raise ValueError("shape mismatch")
            total = total + ((y - t) ** 2).sum() / (t ** 2).sum().clamp_min(1e-24)
        return total / len(probes)

    with torch.no_grad():
        start = float(objective())
    opt = torch.optim.LBFGS(params, lr=1.0, max_iter=iters, history_size=50, line_search_fn="strong_wolfe",
                            tolerance_grad=1e-14, tolerance_change=1e-16)

    def closure():
        opt.zero_grad()
        loss = objective()
        if torch.isfinite(loss):
            if loss.item() < best["loss"]:
                best["loss"] = loss.item()
                best["state"] = copy.deepcopy(model.state_dict())
            loss.backward()
        return loss

    try:
        opt.step(closure)
    except Exception as exc:  # a NaN line search etc.: keep the best state seen
        print(f"      (fit stopped: {type(exc).__name__}: {exc})")
    model.load_state_dict(best["state"])
    return start, best["loss"]


# ------------------------------------------------------------------------------------------------ checks
def fmt(errs):
    def one(e):
        if e == math.inf:
            return "shape"
        if e != e:
            return "nan"
        return f"{e:.1e}"
    return "[" + " ".join(one(e) for e in errs) + "]"


class Case:
    def __init__(self, entry, kb, kb_items):
        self.entry = entry
        self.file = entry["file"]
        self.kind = entry["kind"]
        self.ref_name = entry["reference"]
        self.level = int(entry["level"])
        self.input_map = entry.get("input_map")
        self.mapping = entry.get("param_copy") or []
        code = kb_items[(self.level, self.ref_name)]
        self.ref_ns = exec_module(code, "kb_reference", REF_SIZES[self.ref_name], f"<kb {self.ref_name}>")
        self.ref_init = list(self.ref_ns["get_init_inputs"]())
        path = os.path.join(HERE, self.file)
        with open(path) as fh:
            src = fh.read()
        consts = {}
        for k, v in entry.get("case_consts", {}).items():
            consts[k] = eval(v, dict(self.ref_ns)) if isinstance(v, str) else v
        self.case_ns = exec_module(src, "case_module", consts, path)
        self.case_init = list(self.case_ns["get_init_inputs"]())
        ninputs = len(_gi(self.ref_ns, 0))
        self.kinds = INPUT_KINDS.get(self.ref_name, ["float"] * ninputs)
        self.fit_probes = make_probes(self.ref_ns, self.kinds, FIT_SPEC)
        self.test_probes = make_probes(self.ref_ns, self.kinds, TEST_SPEC)

    def ref(self, seed=100, perturbed=False):
        m = build(self.ref_ns, self.ref_init, seed)
        if perturbed:
            perturb(m, seed + 1)
        return m

    def case(self, seed=200):
        return build(self.case_ns, self.case_init, seed)


def check_control(c, log):
    ok = True
    configs = []
    ref0 = c.ref()
    case0 = c.case()
    if c.mapping:
        copy_params(ref0, case0, c.mapping)
    configs.append(("ref-init", case0, ref0))
    if n_params(ref0):
        refp = c.ref(perturbed=True)
        casep = c.case()
        copy_params(refp, casep, c.mapping)
        configs.append(("copied", casep, refp))
    for name, case, ref in configs:
        errs = compare(case, ref, c.fit_probes + c.test_probes, c.input_map)
        good = all(e < MATCH_TOL for e in errs)
        ok &= good
        log(f"    {name:9s} {'match' if good else 'MISMATCH':9s} max rel {max(errs):.1e}")
    return ok


def check_lookalike(c, log, iters):
    ok = True
    all_probes = c.fit_probes + c.test_probes

    def judge(name, errs):
        nonlocal ok
        bad = [e for e in errs if not (e > DIFF_TOL)]  # nan counts as not proven
        good = not bad
        ok &= good
        shape = all(e == math.inf for e in errs)
        finite = [e for e in errs if e != math.inf]
        summary = "shape differs" if shape else f"min rel {min(finite):.1e}"
        log(f"    {name:22s} {'differs' if good else 'NOT PROVEN':10s} {summary:18s} {fmt(errs) if not shape else ''}")
        return shape

    ref0, case0 = c.ref(), c.case()
    shape = judge("init", compare(case0, ref0, all_probes, c.input_map))
    if n_params(ref0):
        refp, casep = c.ref(perturbed=True), c.case()
        if c.mapping:
            copy_params(refp, casep, c.mapping)
        judge("copied" if c.mapping else "perturbed-ref", compare(casep, refp, all_probes, c.input_map))
    if c.mapping:
        case1 = c.case()
        copy_params(ref0, case1, c.mapping)
        judge("ref-init", compare(case1, ref0, all_probes, c.input_map))
    if shape:
        log("    (output shapes differ on every probe: fits skipped)")
        return ok
    if n_params(case0):
        starts = [("init", c.case())]
        if c.mapping:
            m = c.case()
            copy_params(ref0, m, c.mapping)
            starts.append(("copied", m))
        m = c.case()
        identity_start(m)
        starts.append(("identity", m))
        for sname, m in starts:
            start, loss = fit(m, ref0, c.fit_probes, iters, input_map_model=c.input_map)
            errs = compare(m, ref0, c.test_probes, c.input_map)
            judge(f"fit-case<{sname}> {start:.0e}>{loss:.0e}", errs)
    if n_params(ref0):
        starts = [("init", c.ref())]
        if c.mapping:
            m = c.ref()
            copy_params(case0, m, c.mapping, reverse=True)
            starts.append(("copied", m))
        m = c.ref()
        identity_start(m)
        starts.append(("identity", m))
        for sname, m in starts:
            case_fixed = c.case()

            class _Swap(torch.nn.Module):  # so that fit() can reuse input maps: target = case
                def __init__(self, inner):
                    super().__init__()
                    self.inner = inner

                def forward(self, *xs):
                    return run(self.inner, list(xs), c.input_map)

            start, loss = fit(m, _Swap(case_fixed), c.fit_probes, iters)
            errs = compare(case_fixed, m, c.test_probes, c.input_map)
            judge(f"fit-ref<{sname}> {start:.0e}>{loss:.0e}", errs)
    return ok


# --------------------------------------------------------------------------- collisions with other problems
_OTHER_CACHE = {}


def other_problems(kb_items, sizes):
    """Level-1 problems with few parameters (activations, norms, reductions, losses), shrunk with the target's
    size constants."""
    key = json.dumps(sizes, sort_keys=True, default=str)
    if key in _OTHER_CACHE:
        return _OTHER_CACHE[key]
    out = []
    for (lvl, name), code in kb_items.items():
        if lvl != 1:
            continue
        try:
            ns = exec_module(code, "kb_other", dict(sizes))
            m = build(ns, list(ns["get_init_inputs"]()), 7)
        except Exception:
            continue
        if n_params(m) > 10000:
            continue
        out.append((name, m))
    _OTHER_CACHE[key] = out
    return out


def check_collisions(c, kb_items, log):
    hits = []
    compared = 0
    case0 = c.case()
    with torch.no_grad():
        outs = [run(case0, x, c.input_map) for _, x in c.test_probes]
        for name, m in other_problems(kb_items, REF_SIZES[c.ref_name]):
            if name == c.ref_name:
                continue
            try:
                errs = [rel_err(o, m(*x)) for o, (_, x) in zip(outs, c.test_probes)]
            except Exception:
                continue
            if any(e == math.inf for e in errs):
                continue
            compared += 1
            if all(e < DIFF_TOL for e in errs):
                hits.append(name)
    log(f"    collisions: compared with {compared} other level-1 problems of the same output shape, "
        f"{len(hits)} coincide")
    if hits:
        log(f"    COLLIDES with other KernelBench problems at init: {hits}")
    return not hits


# ------------------------------------------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernelbench", default=os.environ.get("KERNELBENCH_V01_JSONL", DEFAULT_KB))
    ap.add_argument("--only", default="", help="comma-separated file prefixes, e.g. l01,c03")
    ap.add_argument("--fit-iters", type=int, default=300)
    ap.add_argument("--no-collisions", action="store_true")
    ap.add_argument("--no-self-test", action="store_true",
                    help="skip the harness self-test (each control must fail the look-alike check and vice versa)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    warnings.filterwarnings("ignore", category=UserWarning)
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    np.random.seed(0)
    kb_items = load_kernelbench(args.kernelbench)
    with open(os.path.join(HERE, "manifest.json")) as fh:
        manifest = json.load(fh)
    only = [s for s in args.only.split(",") if s]
    failures = []
    counts = {"lookalike": 0, "control": 0}
    t0 = time.time()
    for entry in manifest:
        if only and not any(entry["file"].startswith(p) for p in only):
            continue
        lines = []
        log = lines.append
        t = time.time()
        try:
            c = Case(entry, args.kernelbench, kb_items)
            if c.kind == "control":
                ok = check_control(c, log)
            else:
                ok = check_lookalike(c, log, args.fit_iters)
                if not args.no_collisions:
                    ok &= check_collisions(c, kb_items, log)
        except Exception as exc:
            import traceback
            ok = False
            log("    ERROR " + "".join(traceback.format_exception(exc)).strip().replace("\n", "\n    "))
        counts[entry["kind"]] += 1
        status = "PASS" if ok else "FAIL"
        print(f"{status} {entry['kind']:9s} {entry['file']:42s} -> {entry['reference']} ({time.time() - t:.1f}s)")
        if args.verbose or not ok:
            print("\n".join(lines))
        if not ok:
            failures.append(entry["file"])
        sys.stdout.flush()
    if not args.no_self_test:
        # The checks must not be vacuous: a control judged as a look-alike must fail, and a look-alike judged
        # as a control must fail.
        print("\nself-test (swapped labels must fail):")
        for entry in manifest:
            if only and not any(entry["file"].startswith(p) for p in only):
                continue
            sink = []
            try:
                c = Case(entry, args.kernelbench, kb_items)
                swapped_ok = check_lookalike(c, sink.append, 50) if c.kind == "control" else check_control(c, sink.append)
            except Exception as exc:
                swapped_ok = True
                sink.append(f"ERROR {exc}")
            if swapped_ok:
                failures.append(entry["file"] + " (self-test: passes with the swapped label)")
                print(f"  SELF-TEST FAIL {entry['file']}: passes as a {'look-alike' if c.kind == 'control' else 'control'}")
                print("\n".join(sink))
        print(f"  {sum(1 for e in manifest if not only or any(e['file'].startswith(p) for p in only))} cases "
              f"checked with swapped labels")
    print(f"\n{counts['lookalike']} look-alikes, {counts['control']} controls, {len(failures)} failing "
          f"({time.time() - t0:.0f}s)")
    for f in failures:
        print("  FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
