"""kvdata.reward in veRL 0.9.1: veRL's reward-loop worker loads ``kvdata.reward:compute_score`` through
``reward.custom_reward_function`` (the README's config block, merged into veRL's own reward.yaml) and scores a
batch built by veRL's own ``RLHFDataset`` from a `kvdata export --task torch2triton --format rl` export of the bundled
sample: an honest kernel earns 1.4, a torch-only hack and a wrong kernel 0.4, a response with no code 0, and a
repeated honest response 1.4 from the cache; the scores land on each response's last token of ``rm_scores``.

veRL needs transformers < 5.11, so it runs in its own venv (scripts/install_verl.sh; `make install` makes it, and
this test makes it on first use when it is missing): tests/reward_verl_check.py runs there, in a subprocess."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from consumer_helpers import qwen_tokenizer_folder, rl_export  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("KVDATA_VERL_VENV", Path.home() / ".cache" / "kvdata" / "venv-verl"))


def verl_python() -> Path:
    """The venv's python, after scripts/install_verl.sh: a no-op when the venv is there and its kvdata is this
    checkout; else it (re)installs it (first use, or a clone elsewhere)."""
    res = subprocess.run(["bash", str(REPO / "scripts" / "install_verl.sh")], capture_output=True, text=True,
                         timeout=900, env={**os.environ, "KVDATA_VERL_VENV": str(VENV)})
    assert res.returncode == 0, f"scripts/install_verl.sh failed:\n{(res.stdout + res.stderr)[-3000:]}"
    return VENV / "bin" / "python"


def test_verl_reward_loop_scores_an_rlhf_dataset_batch_with_compute_score(tmp_path):
    python = verl_python()
    export = rl_export(tmp_path)
    tokenizer = qwen_tokenizer_folder(tmp_path / "tok")
    out = tmp_path / "verl.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KVDATA_REWARD_")}
    env.update({"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "WANDB_DISABLED": "true",
                "VERL_USE_EXTERNAL_PLUGINS": "none", "HOME": str(tmp_path / "home")})
    res = subprocess.run([str(python), str(REPO / "tests" / "reward_verl_check.py"), str(export), str(tokenizer),
                          str(REPO / "README.md"), str(out), str(tmp_path / "vcache")],
                         capture_output=True, text=True, timeout=600, env=env, cwd=str(tmp_path))
    assert res.returncode == 0, (res.stdout + res.stderr)[-5000:]
    got = json.loads(out.read_text())
    assert got["verl"] == "0.9.1" and got["transformers"].startswith("5.10")
    assert got["reward_fn"] == "pkg://kvdata.reward:compute_score" and got["reward_manager"] == "NaiveRewardManager"
    assert got["scores"] == [pytest.approx(1.4), pytest.approx(0.4), pytest.approx(0.4), 0.0, pytest.approx(1.4)]
    extra = got["extra"]
    assert got["same_keys"] and {"score", "acc", "status", "reason", "flags", "cache_hit"} <= set(extra)
    assert extra["status"] == ["correct", "flagged", "incorrect", "unparsed", "correct"]
    assert "no_kernel_launch" in extra["flags"][1] and extra["hacked"][1] == 1.0
    assert extra["reason"][3] == "unparsed:no_code_block"
    # veRL scores the batch's items in concurrent threads: whichever of the two identical completions reaches the
    # service first is verified, and the other waits for it and is a cache hit.
    assert sorted([extra["cache_hit"][0], extra["cache_hit"][4]]) == [0.0, 1.0]
    assert extra["acc"] == [1.0, 0.0, 0.0, 0.0, 1.0]
    # one reward per response, on its last valid token (veRL's assemble_rm_scores)
    assert got["rm_scores_sum"] == pytest.approx(got["scores"]) and got["rm_scores_nonzero"] == [1, 1, 1, 0, 1]
