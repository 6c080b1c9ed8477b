"""kvdata's LLaMA-Factory exports through LLaMA-Factory 0.9.5's own data pipeline: every entry of the
``dataset_info.json`` of an alpaca and a sharegpt SFT export (torch2triton, and qa in alpaca) and of a standard-form
DPO export (hip2hip, --dpo-margin 0.1) loads as LLaMA-Factory's ``sft`` and ``dpo`` workflows load it
(``get_train_args`` -> ``load_tokenizer`` -> ``get_template_and_fix_tokenizer`` -> ``get_dataset``, template
``qwen``, a local Qwen2 tokenizer), the ``*_train`` entry as ``dataset`` and the others as ``eval_dataset``.

Per entry: every exported row of its split comes back as one example (less only rows LLaMA-Factory drops by its
documented rules, counted by reason; none for the sample), no example has all its labels ignored or is cut, the
labels decode to exactly the row's response (for pairs: chosen and rejected, whose sequences differ), and the input
holds the row's system prompt (not the template's default) and its prompt, and the token lengths kvdata's accounting
reports with ``--tokenizer`` (what ``--max-tokens`` cuts on) are the lengths LLaMA-Factory built. A control copy of
the alpaca export whose dataset_info.json maps ``response`` to the empty ``input`` column and drops ``system`` loads
just as well in LLaMA-Factory but fails those comparisons: they see a wrong mapping.

LLaMA-Factory 0.9.5 needs transformers <= 5.6.0 and datasets <= 4.0.0, so it runs in its own venv
(scripts/install_llamafactory.sh; `make install` makes it, and this test makes it on first use when it is missing,
or skips when it cannot be made for want of PyPI): tests/llamafactory_check.py runs there, in a subprocess. Nothing
is downloaded at run time (HF_HUB_OFFLINE=1, HF_DATASETS_OFFLINE=1)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kvdata.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from consumer_helpers import qwen_tokenizer_folder  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("KVDATA_LLAMAFACTORY_VENV", Path.home() / ".cache" / "kvdata" / "venv-llamafactory"))
#: What pip prints when the index cannot be reached (then the venv cannot be made here: skip, not fail).
NO_INDEX = re.compile(r"Failed to establish a new connection|Temporary failure in name resolution|Network is "
                      r"unreachable|No matching distribution found|Could not fetch URL|ConnectTimeout|ReadTimeout|"
                      r"ProxyError|Max retries exceeded")

EXPORTS = {  # folder: (export arguments, format as the check reads rows)
    "sft_alpaca": (["--task", "torch2triton", "--format", "alpaca"], "alpaca"),
    "sft_sharegpt": (["--task", "torch2triton", "--format", "sharegpt"], "sharegpt"),
    "qa_alpaca": (["--task", "qa", "--format", "alpaca"], "alpaca"),
    "dpo_standard": (["--task", "hip2hip", "--format", "dpo", "--dpo-form", "standard", "--dpo-margin", "0.1"],
                     "dpo"),
}


def llamafactory_python() -> Path:
    """The venv's python, after scripts/install_llamafactory.sh (a no-op when the venv is there and current)."""
    res = subprocess.run(["bash", str(REPO / "scripts" / "install_llamafactory.sh")], capture_output=True,
                         text=True, timeout=900, env={**os.environ, "KVDATA_LLAMAFACTORY_VENV": str(VENV)})
    log = res.stdout + res.stderr
    if res.returncode != 0 and NO_INDEX.search(log):
        errors = [line for line in log.splitlines() if line.startswith("ERROR")] or log.splitlines()
        pytest.skip(f"LLaMA-Factory's venv cannot be made here (no package index?): {' '.join(errors[-2:])}")
    assert res.returncode == 0, f"scripts/install_llamafactory.sh failed:\n{log[-3000:]}"
    return VENV / "bin" / "python"


def _export(built: Path, out: Path, tokenizer: Path, args: list[str]) -> dict:
    res = CliRunner().invoke(main, ["export", "--data", str(built), "--out", str(out), "--val-fraction", "0.3",
                                    "--tokenizer", str(tokenizer), *args])
    assert res.exit_code == 0, (args, res.output[-3000:])
    return json.loads((out / "accounting.json").read_text())


def _misread_copy(src: Path, dst: Path) -> None:
    """A copy of an alpaca export whose entries read the response from ``input`` (always empty) and no system."""
    shutil.copytree(src, dst)
    info = json.loads((dst / "dataset_info.json").read_text())
    for entry in info.values():
        entry["columns"]["response"] = "input"
        del entry["columns"]["system"]
    (dst / "dataset_info.json").write_text(json.dumps(info))


def test_llamafactory_loads_every_dataset_info_entry_through_its_own_pipeline(built, tmp_path):
    python = llamafactory_python()
    tokenizer = qwen_tokenizer_folder(tmp_path / "tok")
    accounting = {name: _export(built, tmp_path / name, tokenizer, args) for name, (args, _) in EXPORTS.items()}
    _misread_copy(tmp_path / "sft_alpaca", tmp_path / "control_misread")
    spec = [{"dir": str(tmp_path / name), "format": fmt} for name, (_, fmt) in EXPORTS.items()]
    spec.append({"dir": str(tmp_path / "control_misread"), "format": "alpaca"})
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    out = tmp_path / "llamafactory.json"
    env = {k: v for k, v in os.environ.items() if k != "DISABLE_VERSION_CHECK"}
    env.update({"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "WANDB_DISABLED": "true",
                "HOME": str(tmp_path / "home"), "HF_HOME": str(tmp_path / "hf-home")})
    res = subprocess.run([str(python), str(REPO / "tests" / "llamafactory_check.py"), str(tmp_path / "spec.json"),
                          str(tokenizer), str(tmp_path / "work"), str(out)],
                         capture_output=True, text=True, timeout=600, env=env, cwd=str(tmp_path))
    assert res.returncode == 0, (res.stdout + res.stderr)[-5000:]
    got = json.loads(out.read_text())
    assert got["llamafactory"] == "0.9.5"
    results = {r["dir"]: r for r in got["exports"]}
    assert set(results) == set(EXPORTS) | {"control_misread"}

    for name, acc in accounting.items():
        r = results[name]
        info = json.loads((tmp_path / name / "dataset_info.json").read_text())
        assert set(r["entries"]) == set(info) == set(acc["entries"]), name
        assert (r["stage"], r["get_dataset_stage"]) == (("dpo", "rm") if name.startswith("dpo") else ("sft", "sft"))
        assert {e["role"] for e in r["entries"].values()} == {"train", "eval"}, name
        for entry, e in r["entries"].items():
            where = f"{name}: {entry}: {e}"
            split = next(s for s in acc["exported"] if entry.endswith("_" + s))
            assert e["rows_file"] == acc["exported"][split] > 0 and e["rows_aligned"] == e["rows_file"], where
            # every row loads, less only what LLaMA-Factory's processors drop by their documented rules
            assert e["rows_loaded"] == e["rows_file"] - sum(e["dropped"].values()) > 0, where
            n = e["rows_loaded"]
            assert e["labels_all_ignored"] == 0 and e["truncated"] == 0, where
            assert e["labels_are_response"] == n and e["prompt_in_input"] == n, where
            assert e["system_in_input"] == n and e["default_system_in_input"] == 0, where
            if r["stage"] == "dpo":
                assert e["chosen_eq_rejected"] == 0 and e["rejected_labels_are_response"] == n, where
            # kvdata's token lengths (--tokenizer: what --max-tokens cuts on) are the ones LLaMA-Factory builds
            lengths = acc["lengths"][split]
            assert lengths["unit"] == "tokens" and len(e["tokens"]) == n, where
            if not e["dropped"]:
                assert lengths["n"] == n and lengths["max"] == max(e["tokens"]), where
                assert lengths["mean"] == pytest.approx(sum(e["tokens"]) / n), where

    # the control: LLaMA-Factory loads the mis-mapped copy, and the comparisons see the mistake
    for entry, e in results["control_misread"]["entries"].items():
        n = e["rows_loaded"]
        assert n == e["rows_file"] > 0 and e["labels_all_ignored"] == 0, (entry, e)
        assert e["labels_are_response"] == 0 and e["system_in_input"] == 0 and e["default_system_in_input"] == n, e
