"""Every hostile suite in tests/ through the reward, as a model would hand it in: each case's kernel in a fenced
block, scored by TRL's reward-function form on warm sandboxed workers (Triton interpreter, the real harness with
its checks on). A hack earns at most the compile term (0.4); an honest control earns the correct term (1.4).

Which cases: all of tests/hostile/, tests/knockout_suite/, tests/reverify_suite3/, tests/reverify_redteam/ and
tests/reverify_suite4/ that their own tests judge on the CPU (tests/hostile_cases.py says which are left out and
why: GPU-only timing tricks, references that are zero everywhere, and suite4's hacks the verifier does not catch
yet, which the reward inherits: tests/test_reverify_suite4.py lists them).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from hostile_cases import hostile_dir_cases, knockout_cases, manifest_cases  # noqa: E402

from kvdata.reward import make_trl_reward  # noqa: E402
from kvdata.reward.service import close_all  # noqa: E402

COMPILE, CORRECT = 0.4, 1.4


def _completion(kernel: str) -> list[dict]:
    return [{"role": "assistant", "content": f"Here is the kernel.\n\n```python\n{kernel}\n```\n"}]


def _score(cases, tmp: Path, **options) -> dict:
    fn = make_trl_reward(backend="triton-interpreter", seeds=2, workers=2, verifier_cache_root=str(tmp / "cache"),
                         **options)
    rewards = fn(prompts=[None] * len(cases), completions=[_completion(c.kernel) for c in cases],
                 data_source=["amdkernelvault/torch2triton"] * len(cases),
                 reward_model=[{"style": "rule", "ground_truth": c.reference} for c in cases],
                 extra_info=[{"id": f"{c.suite}/{c.name}", "language": "triton"} for c in cases])
    return {c.name: (r, v) for c, r, v in zip(cases, rewards, fn.last_verdicts)}


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reward-hostile")
    token = tmp / "home" / ".cache" / "huggingface" / "token"
    token.parent.mkdir(parents=True)
    token.write_text("hf_FAKE_TOKEN_for_kvdata_tests")
    mp = pytest.MonkeyPatch()
    mp.setenv("HF_TOKEN", "hf_FAKE_TOKEN_for_kvdata_tests")
    mp.setenv("HOME", str(tmp / "home"))
    suites = {"hostile": hostile_dir_cases(str(token), str(tmp / "escaped.txt"))}
    try:
        # tests/hostile/ holds the hang and the process storm: its own short limit, as in its test
        out = {"hostile": (suites["hostile"], _score(suites["hostile"], tmp, timeout_s=20, memory_mb=1500))}
        for name, cases in (("knockout_suite", knockout_cases()),
                            ("reverify_suite3", manifest_cases("reverify_suite3")),
                            ("reverify_redteam", manifest_cases("reverify_redteam")),
                            ("reverify_suite4", manifest_cases("reverify_suite4"))):
            out[name] = (cases, _score(cases, tmp, timeout_s=120, memory_mb=3000))
    finally:
        close_all()
        mp.undo()
    return out


@pytest.mark.parametrize("suite", ["hostile", "knockout_suite", "reverify_suite3", "reverify_redteam",
                                   "reverify_suite4"])
def test_no_hack_earns_more_than_the_compile_term_and_every_control_earns_correct(scored, suite):
    cases, got = scored[suite]
    hostile = [c for c in cases if not c.honest]
    honest = [c for c in cases if c.honest]
    assert hostile and honest
    over = {c.name: (got[c.name][0], got[c.name][1].reason) for c in hostile if got[c.name][0] > COMPILE}
    assert not over, f"hacks paid more than the compile term: {over}"
    under = {c.name: (got[c.name][0], got[c.name][1].reason, got[c.name][1].message[:200]) for c in honest
             if got[c.name][0] != pytest.approx(CORRECT)}
    assert not under, f"honest kernels not paid the correct term: {under}"
    for c in hostile:                       # every hack was judged by the harness, not dropped by the parser
        assert got[c.name][1].status != "unparsed", (c.name, got[c.name][1].reason)


def test_a_hack_caught_by_a_check_is_capped_by_its_flag(scored):
    """Hacks whose outputs matched and a check then failed them: the flag's cost is what capped them."""
    _, ko = scored["knockout_suite"]
    reward, verdict = ko["eager_copy"]
    assert verdict.status == "flagged" and "kernel_not_needed" in verdict.flags
    assert reward == pytest.approx(COMPILE) and "kernel_not_needed:compile" in verdict.costs and verdict.hacked
    _, s3 = scored["reverify_suite3"]
    reward, verdict = s3["h_perf_counter_patch"]
    assert "timer_tampered" in verdict.flags and reward == 0.0 and "timer_tampered:zero" in verdict.costs
    reward, verdict = s3["h_shape_literal"]
    assert verdict.status == "shape_specialised" and reward == pytest.approx(COMPILE)
