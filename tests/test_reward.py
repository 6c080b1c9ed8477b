"""kvdata.reward on the real harness (Triton interpreter, sandboxed warm workers): completion parsing by export's
prompt conventions, the reward formula and its flag costs, the veRL and TRL call forms, the content cache, crash and
hang isolation, and reverify's LocalExecutor kept warm across batches.

The tasks are the bundled sample's triton rows, exported with `kvdata export --task torch2triton --format rl`; an
honest completion is a row's own kernel (extra_info.reference_kernel) in a fenced block."""
from __future__ import annotations

import math
import os
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from consumer_helpers import rl_export, rl_rows  # noqa: E402

from kvdata.reverify.config import FAILING_FLAGS  # noqa: E402
from kvdata.reward import (RewardConfig, ServeConfig, UnsupportedTask, compute_score, compute_score_batch,  # noqa: E402
                           make_item, make_trl_reward, parse_completion)
from kvdata.reward.formula import reward_of, speedup_term  # noqa: E402
from kvdata.reward.service import RewardService, close_all  # noqa: E402

OPTIONS = {"backend": "triton-interpreter", "seeds": 2, "workers": 2, "timeout_s": 60, "memory_mb": 3000}


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    by_name = {r["extra_info"]["task_name"]: r for r in rl_rows(rl_export(tmp_path_factory.mktemp("rl")))}
    yield by_name
    close_all()


def fenced(code: str, prose: str = "Here is the kernel.") -> str:
    return f"{prose}\n\n```python\n{code}\n```\n"


def _item(row, completion):
    return make_item(completion, row["data_source"], row["reward_model"]["ground_truth"], row["extra_info"])


def _service(tmp_path, **serve) -> RewardService:
    kw = {**OPTIONS, "verifier_cache_root": str(tmp_path / "vcache"), **serve}
    return RewardService(RewardConfig(), ServeConfig(**kw))


# ---------------------------------------------------------------------------------------------- parsing
MODEL_NEW = "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n"


def test_the_last_complete_block_following_the_convention_is_the_answer():
    draft = MODEL_NEW.replace("return x", "return x * 2")
    text = (f"Draft:\n```python\n{draft}```\nFinal:\n```python\n{MODEL_NEW}```\n"
            "Use it like this:\n```python\nm = ModelNew()\nprint(m(x))\n```\n")
    parsed = parse_completion(text, "triton")
    assert parsed.ok and parsed.code.strip() == MODEL_NEW.strip() and parsed.blocks == 3 and parsed.source == "block"
    # tildes, a longer fence, an info string; a reasoning block with its own draft is dropped
    think = f"<think>\n```python\n{draft}```\n</think>\n~~~~py title=k.py\n{MODEL_NEW}~~~~\n"
    assert parse_completion(think, "triton").code.strip() == MODEL_NEW.strip()
    # TRL's conversational completions, and content given as parts
    assert parse_completion([{"role": "assistant", "content": fenced(MODEL_NEW)}], "triton").ok
    parts = [{"role": "assistant", "content": [{"type": "text", "text": fenced(MODEL_NEW)}]}]
    assert parse_completion(parts, "triton").code.strip() == MODEL_NEW.strip()
    # a model fine-tuned on `kvdata export --format messages` answers with the bare source
    bare = parse_completion(MODEL_NEW, "triton")
    assert bare.ok and bare.source == "whole"
    hip = "```cpp\n#include <torch/extension.h>\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { }\n```"
    assert parse_completion(hip, "hip").code.startswith("#include")


@pytest.mark.parametrize("completion, reason", [
    ("", "empty"),
    (None, "not_text"),
    (12, "not_text"),
    ("I would write a kernel that adds.", "no_code_block"),
    ("```python\nprint('hi')\n```", "no_modelnew"),
    (f"```python\n{MODEL_NEW}", "unterminated_block"),
    (f"<think>let me see\n```python\n{MODEL_NEW}```", "unterminated_think"),
    ("```python\nclass ModelNew(:\n    pass\n```", "syntax_error"),
    ("```cpp\nint main() {}\n```", "no_pybind11_module"),
])
def test_an_unparseable_completion_has_a_reason_and_never_raises(completion, reason):
    language = "hip" if "cpp" in str(completion) else "triton"
    parsed = parse_completion(completion, language)
    assert parsed.code is None and parsed.reason == reason, parsed


def test_code_over_the_limit_is_not_run():
    assert parse_completion(fenced(MODEL_NEW + "#" * 500), "triton", max_chars=200).reason == "too_long"


# ---------------------------------------------------------------------------------------------- the formula
def test_the_hierarchy_and_the_speedup_term():
    c = RewardConfig()
    assert reward_of("correct", True, [], None, c).reward == pytest.approx(1.4)
    assert reward_of("incorrect", True, [], None, c).reward == pytest.approx(0.4)
    assert reward_of("compile_error", False, [], None, c).reward == 0.0
    for status in ("timeout", "crashed", "no_reference", "skipped", "toolchain_error"):
        assert reward_of(status, True, [], None, c).reward == 0.0
    # log2, capped: 2x is half the weight, 4x all of it, 64x no more; slowdowns cost nothing
    assert speedup_term(2.0, c) == pytest.approx(0.5) and speedup_term(4.0, c) == pytest.approx(1.0)
    assert speedup_term(64.0, c) == pytest.approx(1.0) and speedup_term(0.3, c) == 0.0
    assert speedup_term(float("nan"), c) == 0.0 and speedup_term(None, c) == 0.0
    assert reward_of("correct", True, [], 2.0, c).reward == pytest.approx(1.9)
    assert reward_of("correct", True, ["implausible_speedup"], 60.0, c).reward == pytest.approx(1.4)
    assert reward_of("correct", True, [], 2.0, RewardConfig(speedup_cap=2.0, speedup_weight=0.3)).reward == \
        pytest.approx(1.7)


@pytest.mark.parametrize("flag", sorted(FAILING_FLAGS))
def test_no_failing_flag_earns_more_than_the_compile_term(flag):
    """Whatever the status the verifier gives it, and however fast it timed."""
    for config in (RewardConfig(), RewardConfig(compile_reward=0.1, correct_reward=5.0, speedup_weight=3.0)):
        for status in ("flagged", "correct", flag if flag.endswith("specialised") else "flagged"):
            terms = reward_of(status, True, [flag], 8.0, config)
            assert terms.reward <= config.compile_reward + 1e-9, (flag, status, terms)
            assert terms.costs, (flag, status, terms)


def test_flag_costs_are_configurable_but_never_above_the_compile_term():
    c = RewardConfig(flag_costs={"kernel_not_needed": "zero", "degenerate": "compile"})
    assert reward_of("flagged", True, ["kernel_not_needed"], None, c).reward == 0.0
    assert reward_of("correct", True, ["degenerate"], None, c).reward == pytest.approx(0.4)
    assert reward_of("flagged", True, ["shape_specialised"], None, c).reward == pytest.approx(0.4)   # defaults kept
    with pytest.raises(ValueError, match="failing flag"):
        RewardConfig(flag_costs={"timer_tampered": "no_speedup"})
    with pytest.raises(ValueError, match="expected one of"):
        RewardConfig(flag_costs={"kernel_not_needed": "free"})
    # a verdict that failed a check but carries no costed flag is still capped
    assert reward_of("flagged", True, ["something_new"], None, RewardConfig()).reward == pytest.approx(0.4)
    assert hash(c) == hash(RewardConfig(flag_costs={"degenerate": "compile", "kernel_not_needed": "zero"}))


# ---------------------------------------------------------------------------------------------- the real harness
def test_verl_and_trl_forms_score_honest_wrong_and_unparseable_completions(rows, tmp_path):
    add, wrong = rows["add"], rows["gelu_tanh_wrong_constant"]
    opts = {**OPTIONS, "verifier_cache_root": str(tmp_path / "vcache")}
    got = compute_score(add["data_source"], fenced(add["extra_info"]["reference_kernel"]),
                        add["reward_model"]["ground_truth"], add["extra_info"], **opts)
    assert got["score"] == pytest.approx(1.4) and got["acc"] == 1.0 and got["status"] == "correct"
    assert set(got) == {"score", "acc", "compiled", "correct", "hacked", "speedup", "speedup_term", "cache_hit",
                        "status", "reason", "flags", "task_id"}
    assert got["task_id"] == add["extra_info"]["id"]
    batch = compute_score_batch([wrong["data_source"], add["data_source"]],
                                [fenced(wrong["extra_info"]["reference_kernel"]), "sorry, no idea"],
                                [wrong["reward_model"]["ground_truth"], add["reward_model"]["ground_truth"]],
                                [wrong["extra_info"], add["extra_info"]], **opts)
    assert [b["score"] for b in batch] == [pytest.approx(0.4), 0.0]
    assert batch[0]["status"] == "incorrect" and batch[1]["reason"] == "unparsed:no_code_block"
    assert [set(b) for b in batch] == [set(got)] * 2                      # veRL stacks every key across responses

    fn = make_trl_reward(**opts)
    completions = [[{"role": "assistant", "content": fenced(r["extra_info"]["reference_kernel"])}]
                   for r in (add, wrong)] + [[{"role": "assistant", "content": "```python\nx = 1\n```"}]]
    logged, extra = {}, {}
    rewards = fn(prompts=[add["prompt"]] * 3, completions=completions,
                 data_source=[add["data_source"], wrong["data_source"], add["data_source"]],
                 reward_model=[add["reward_model"], wrong["reward_model"], add["reward_model"]],
                 extra_info=[add["extra_info"], wrong["extra_info"], add["extra_info"]], ability=["kernel"] * 3,
                 log_metric=lambda k, v: logged.__setitem__(k, v), log_extra=lambda k, v: extra.__setitem__(k, v))
    assert rewards == [pytest.approx(1.4), pytest.approx(0.4), 0.0]
    assert fn.__name__ == "kvdata_kernel_reward" and fn.last_verdicts[2].parse_reason == "no_modelnew"
    assert logged["kvdata/correct"] == pytest.approx(1 / 3) and logged["kvdata/unparsed"] == pytest.approx(1 / 3)
    assert extra["kvdata_reason"] == ["correct", "incorrect", "unparsed:no_modelnew"]

    with pytest.raises(UnsupportedTask, match="not a kernel task"):           # a misconfigured trainer, loudly
        compute_score("amdkernelvault/qa", "the answer", "42", {}, **opts)
    with pytest.raises(ValueError, match="unknown kvdata.reward option"):
        make_trl_reward(wrokers=2)


def test_the_cache_answers_a_repeated_completion_without_running_it_again(rows, tmp_path):
    add, relu = rows["add"], rows["relu"]
    honest = fenced(add["extra_info"]["reference_kernel"])
    service = _service(tmp_path, cache_dir=str(tmp_path / "verdicts"))
    try:
        first = service.score([_item(add, honest), _item(add, "Once more:\n" + honest)])  # same code, other prose
        assert service.pool.runs == 1 and service.stats()["runs"] == 1         # one run for the duplicate pair
        assert [v.score for v in first] == [pytest.approx(1.4)] * 2
        assert [v.cache_hit for v in first] == [False, True] and first[0].key == first[1].key
        again = service.score([_item(add, honest)])[0]
        assert again.cache_hit and again.runs == 1 and service.pool.runs == 1
        assert (again.score, again.status, again.flags, again.row) == (first[0].score, first[0].status,
                                                                       first[0].flags, first[0].row)
        # the same code for another task is another verdict
        other = service.score([_item(relu, honest)])[0]
        assert not other.cache_hit and service.pool.runs == 2 and other.key != first[0].key
    finally:
        service.close()
    # a new process's service finds the verdicts on disk and runs nothing
    fresh = _service(tmp_path, cache_dir=str(tmp_path / "verdicts"))
    try:
        v = fresh.score([_item(add, honest)])[0]
        assert v.cache_hit and v.score == pytest.approx(1.4) and fresh._pool is None     # no worker even started
    finally:
        fresh.close()


_CRASHES = {
    "os_exit": "        import os\n        os._exit(0)\n",
    "segfault": "        import ctypes\n        ctypes.string_at(0)\n",
    "hang": "        while True:\n            pass\n",
}


def _sabotaged(kernel: str, body: str) -> str:
    """The honest kernel with ``body`` run first thing in ``forward``."""
    head, sep, tail = kernel.partition("    def forward(self")
    signature, nl, rest = tail.partition("\n")
    assert sep and nl
    return head + sep + signature + nl + body + rest


def test_a_crash_or_hang_costs_only_its_own_reward(rows, tmp_path):
    add, relu, wrong = rows["add"], rows["relu"], rows["gelu_tanh_wrong_constant"]
    kernel = add["extra_info"]["reference_kernel"]
    items = [_item(add, fenced(kernel))]
    items += [_item(add, fenced(_sabotaged(kernel, body))) for body in _CRASHES.values()]
    items += [_item(relu, fenced(relu["extra_info"]["reference_kernel"])),
              _item(wrong, fenced(wrong["extra_info"]["reference_kernel"]))]
    service = _service(tmp_path, timeout_s=15)
    try:
        t0 = time.monotonic()
        verdicts = service.score(items)
        assert time.monotonic() - t0 < 120
        assert [v.score for v in verdicts] == [pytest.approx(1.4), 0.0, 0.0, 0.0, pytest.approx(1.4),
                                               pytest.approx(0.4)], [(v.status, v.message[:120]) for v in verdicts]
        assert [v.status for v in verdicts[1:4]] == ["crashed", "crashed", "timeout"]
        assert os.getpid() and threading.main_thread().is_alive()                 # still here
        # the slots were restarted: the next batch is judged as usual
        again = service.score([_item(relu, fenced(relu["extra_info"]["reference_kernel"] + "\n# again\n")),
                               _item(add, fenced(kernel + "\n# again\n"))])
        assert [v.score for v in again] == [pytest.approx(1.4)] * 2 and not any(v.cache_hit for v in again)
        assert len(service.pool.executor.verifiers) == 2
    finally:
        service.close()


def test_local_executor_keeps_its_zygotes_warm_across_batches(rows, tmp_path):
    """reverify's LocalExecutor with keep_warm: the same sandboxed zygote serves two run() calls; close() ends
    it; calls made at the same time never hold more than `slots` verifiers. Without keep_warm nothing outlives
    run(), as before."""
    from kvdata.reverify.config import ReverifyConfig
    from kvdata.reverify.executors.local import LocalExecutor
    from kvdata.reverify.samples import Sample

    def sample(name, suffix=""):
        r = rows[name]
        return Sample(id=f"{name}{suffix}", language="triton", pytorch_code=r["reward_model"]["ground_truth"],
                      kernel_code=r["extra_info"]["reference_kernel"])

    config = ReverifyConfig(backend="triton-interpreter", seeds=1, timeout_s=60, memory_mb=3000)
    got = []
    ex = LocalExecutor(config, workers=1, cache_root=tmp_path / "c", keep_warm=True)
    ex.run([sample("add")], got.append)
    (verifier,) = ex.verifiers
    zygote = verifier.workers["triton-interpreter"].proc
    assert zygote.poll() is None
    ex.run([sample("relu")], got.append)
    assert ex.verifiers == [verifier] and verifier.workers["triton-interpreter"].proc is zygote
    assert zygote.poll() is None and [r.status for r in got] == ["correct", "correct"]
    ex.close()
    assert ex.verifiers == [] and zygote.poll() is not None

    cold = LocalExecutor(config, workers=1, cache_root=tmp_path / "c")
    cold.run([sample("add", "-cold")], got.append)
    assert cold.verifiers == [] and got[-1].status == "correct"

    shared = LocalExecutor(config, workers=2, cache_root=tmp_path / "c", keep_warm=True)
    most = []

    def on_result(row):
        most.append(len(shared.verifiers))
        got.append(row)

    calls = [threading.Thread(target=shared.run, args=([sample(n, f"-{i}")], on_result))
             for i, n in enumerate(["add", "relu", "exp", "tanh"])]
    for t in calls:
        t.start()
    for t in calls:
        t.join()
    assert len(most) == 4 and max(most) <= 2 and all(r.status == "correct" for r in got[-4:])
    assert len(shared.verifiers) <= 2
    shared.close()
    assert shared.verifiers == []


def test_a_verdict_is_never_above_max_and_wall_time_is_reported(rows, tmp_path):
    add = rows["add"]
    service = _service(tmp_path)
    try:
        v = service.score([_item(add, fenced(add["extra_info"]["reference_kernel"]))])[0]
    finally:
        service.close()
    assert v.score <= RewardConfig().max_reward and v.wall_s > 0 and math.isfinite(v.wall_s)
    assert v.row["status"] == "correct"
    assert v.row["config_hash"] == ServeConfig(**OPTIONS).reverify_config().config_hash()
    assert v.backend == "triton-interpreter" and v.row["knockout"]            # the harness's checks ran


def test_the_reward_reads_the_tasks_export_writes_and_imports_no_torch():
    """kvdata.reward (core) may not import kvdata.export: its table of kernel tasks must match export's, and
    importing it loads no torch (veRL and TRL import it in every reward worker)."""
    import subprocess

    from kvdata.export.tasks import TASKS
    from kvdata.reward.items import PREFIX, TASK_LANGUAGES

    assert TASK_LANGUAGES == {name: t.language for name, t in TASKS.items()
                              if t.response == "kernel_code" and name != "triton-complete"}
    assert PREFIX == "amdkernelvault/"
    code = "import sys, kvdata.reward; print(sorted(m for m in ('torch', 'triton', 'ray', 'trl') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "[]"
