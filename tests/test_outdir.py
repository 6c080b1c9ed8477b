"""Nothing of the user's is deleted or overwritten: every command that writes a folder owns only the files its
manifest names (kvdata/outdir.py).

Per writing command, through the real CLI: a folder of the user's own files is refused with one line and left
byte for byte as it was; an earlier output of the same command is replaced, and a file the user added to it
since stays. The unit tests below check the staging: an interrupted write leaves the folder as it was."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kvdata.outdir import MANIFEST, OutputFolder, OutputRefused


def _snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _kvdata(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kvdata", *map(str, args)], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env=_env())


def _env():
    import os

    env = dict(os.environ)
    env.pop("KVDATA_DEBUG", None)
    env["HF_ENDPOINT"] = "http://127.0.0.1:9"
    return env


def _users_folder(root: Path) -> Path:
    """A folder of the user's: a README, notes in data/, a report of their own."""
    folder = root / "mine"
    (folder / "data").mkdir(parents=True)
    (folder / "README.md").write_text("# my project\n")
    (folder / "data" / "notes.txt").write_text("do not delete\n")
    (folder / "report.md").write_text("my report\n")
    return folder


def _assert_refused(r: subprocess.CompletedProcess, folder: Path, before: dict) -> None:
    assert r.returncode == 1, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr + r.stdout
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "kvdata did not write" in lines[0] and str(folder.name) in lines[0], r.stderr
    assert _snapshot(folder) == before
    assert not list(folder.parent.glob(".*kvdata-partial*"))       # no staging folder left behind


# ------------------------------------------------------------------------------------------ per command, CLI
def _lexical_audit_args(tmp_path: Path) -> list:
    bench = tmp_path / "bench.jsonl"
    train = tmp_path / "train.jsonl"
    code = "import torch\n\ndef f(x):\n    return torch.relu(x) * 2 + torch.sigmoid(x)\n"
    bench.write_text(json.dumps({"id": "b0", "code": code}) + "\n")
    train.write_text(json.dumps({"id": "t0", "code": code}) + "\n" +
                     json.dumps({"id": "t1", "code": "def g(y):\n    return y - 1\n"}) + "\n")
    return ["audit-overlap", "--bench", "generic", "--bench-path", bench, "--train", train, "--measures", "lexical",
            "--quiet"]


def _results_file(tmp_path: Path) -> Path:
    results = tmp_path / "results.jsonl"
    rows = [{"id": "a", "status": "correct", "correct": True, "flags": [], "message": "", "speedup": None},
            {"id": "b", "status": "incorrect", "correct": False, "flags": [], "message": "max abs err 0.3",
             "speedup": None}]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return results


def _built(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    if not corpus.exists():
        r = _kvdata("build", "--sample", "--quiet", "--out", corpus)
        assert r.returncode == 0, r.stderr[-2000:]
    return corpus


def _score_table(tmp_path: Path) -> Path:
    table = tmp_path / "results.csv"
    lines = ["model,task,compiled,correct"]
    lines += [f"{m},t{i},1,{int((i + k) % 3 != 0)}" for k, m in enumerate(("ours", "base")) for i in range(12)]
    table.write_text("\n".join(lines) + "\n")
    return table


WRITERS = {
    "score": lambda tmp, out: ["score", _score_table(tmp), "--out", out],
    "build": lambda tmp, out: ["build", "--sample", "--quiet", "--out", out],
    "audit-overlap": lambda tmp, out: _lexical_audit_args(tmp) + ["--out", out],
    "reverify-report": lambda tmp, out: ["reverify-report", _results_file(tmp), "--out-dir", out],
    "export": lambda tmp, out: ["export", "--data", _built(tmp), "--task", "hip2hip", "--format", "messages",
                                "--out", out],
}


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_folder_of_the_users_is_refused_and_left_alone(tmp_path, command):
    folder = _users_folder(tmp_path)
    before = _snapshot(folder)
    _assert_refused(_kvdata(*WRITERS[command](tmp_path, folder)), folder, before)


@pytest.mark.parametrize("command", list(WRITERS))
def test_an_earlier_output_is_replaced_and_the_users_additions_stay(tmp_path, command):
    out = tmp_path / "out"
    first = _kvdata(*WRITERS[command](tmp_path, out))
    assert first.returncode == 0, first.stderr[-2000:]
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["command"] == command and manifest["files"]
    assert set(manifest["files"]) == set(_snapshot(out)) - {MANIFEST}
    (out / "my-notes.txt").write_text("added by the user\n")
    second = _kvdata(*WRITERS[command](tmp_path, out))
    assert second.returncode == 0, second.stderr[-2000:]
    assert (out / "my-notes.txt").read_text() == "added by the user\n"
    assert set(json.loads((out / MANIFEST).read_text())["files"]) == set(_snapshot(out)) - {MANIFEST, "my-notes.txt"}


def test_another_commands_output_is_refused(tmp_path):
    out = tmp_path / "out"
    assert _kvdata(*WRITERS["reverify-report"](tmp_path, out)).returncode == 0
    before = _snapshot(out)
    r = _kvdata(*WRITERS["audit-overlap"](tmp_path, out))
    assert r.returncode == 1 and "reverify-report" in r.stderr and _snapshot(out) == before


# ------------------------------------------------------------------------------------------ staging, in-process
def test_an_interrupted_write_leaves_the_earlier_output_as_it_was(tmp_path):
    out = tmp_path / "out"
    with OutputFolder(out, "score").staged() as stage:
        (stage / "score.json").write_text("{}")
        (stage / "report.md").write_text("first")
    before = _snapshot(out)
    with pytest.raises(KeyboardInterrupt):
        with OutputFolder(out, "score").staged() as stage:
            (stage / "score.json").write_text('{"half": ')
            raise KeyboardInterrupt
    assert _snapshot(out) == before
    assert not list(tmp_path.glob(".*kvdata-partial*"))


def test_files_an_output_no_longer_has_are_removed_and_their_empty_folders(tmp_path):
    out = tmp_path / "out"
    with OutputFolder(out, "build").staged() as stage:
        (stage / "data" / "qa").mkdir(parents=True)
        (stage / "data" / "qa" / "train-00000-of-00001.parquet").write_bytes(b"x")
        (stage / "README.md").write_text("card")
    with OutputFolder(out, "build").staged() as stage:
        (stage / "data" / "triton").mkdir(parents=True)
        (stage / "data" / "triton" / "train-00000-of-00001.parquet").write_bytes(b"y")
        (stage / "README.md").write_text("card 2")
    assert set(_snapshot(out)) == {MANIFEST, "README.md", "data/triton/train-00000-of-00001.parquet"}
    assert not (out / "data" / "qa").exists()


def test_a_new_file_named_like_a_users_file_stops_the_commit(tmp_path):
    out = tmp_path / "out"
    with OutputFolder(out, "score").staged() as stage:
        (stage / "score.json").write_text("{}")
    (out / "forest.png").write_bytes(b"the user's own plot")     # added later, same name as an output file
    before = _snapshot(out)
    with pytest.raises(OutputRefused, match="forest.png"):
        with OutputFolder(out, "score").staged() as stage:
            (stage / "score.json").write_text('{"new": 1}')
            (stage / "forest.png").write_bytes(b"kvdata's plot")
    assert _snapshot(out) == before


def test_an_output_written_before_manifests_is_recognised_by_its_marker(tmp_path):
    out = tmp_path / "old-build"
    (out / "data" / "qa").mkdir(parents=True)
    (out / "data" / "qa" / "train-00000-of-00001.parquet").write_bytes(b"old")
    (out / "accounting.json").write_text('{"sources": {}, "totals": {}, "reconciles": true}')
    (out / "README.md").write_text("old card")
    (out / "data" / "notes.txt").write_text("the user's")
    assert OutputFolder(out, "build").owned() == {"accounting.json", "README.md",
                                                  "data/qa/train-00000-of-00001.parquet"}
    with pytest.raises(OutputRefused):
        OutputFolder(out, "score").check()
    with pytest.raises(OutputRefused):              # an export's accounting.json has other keys: not an export
        OutputFolder(out, "export").check()
    with pytest.raises(OutputRefused, match="is a file"):
        OutputFolder(out / "README.md", "build").check()


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
def test_reverify_never_overwrites_or_appends_to_a_file_of_the_users(tmp_path, suffix):
    """`--out` names a file: one that is not an earlier results file (the user's data, the very rows being verified)
    is refused before anything runs; an earlier results file is resumed from."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "x", "language": "triton", "kernel_code": "import torch"}) + "\n")
    mine = tmp_path / f"mine{suffix}"
    if suffix == ".parquet":
        pq.write_table(pa.table({"id": ["a"], "text": ["my data"]}), mine)
    else:
        mine.write_text(json.dumps({"id": "a", "text": "my data"}) + "\n")
    before = _snapshot(tmp_path)
    for out in (mine, rows):
        r = _kvdata("reverify", "--input", rows, "--out", out, "--backend", "triton-interpreter")
        assert r.returncode == 1 and "Traceback" not in r.stderr and "not a `kvdata reverify` results file" in r.stderr
    assert _snapshot(tmp_path) == before
    results = tmp_path / f"results{suffix}"
    assert _kvdata("reverify", "--input", rows, "--out", results, "--backend", "triton-interpreter").returncode == 0
    again = _kvdata("reverify", "--input", rows, "--out", results, "--backend", "triton-interpreter", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["already_done"] == 1


def test_a_cache_the_user_put_inside_the_output_is_neither_refused_nor_touched(tmp_path):
    out = tmp_path / "audit"
    args = _lexical_audit_args(tmp_path) + ["--out", out, "--cache-dir", out / "cache"]
    assert _kvdata(*args).returncode == 0
    (out / "cache").mkdir(exist_ok=True)
    (out / "cache" / "kept.bin").write_bytes(b"cache entry")
    again = _kvdata(*args)
    assert again.returncode == 0, again.stderr
    assert (out / "cache" / "kept.bin").read_bytes() == b"cache entry"
