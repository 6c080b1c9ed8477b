"""scripts/triton_devset.py: provenance labels from real git repositories made here, and materialise round-trips."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "triton_devset.py"

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def {name}(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, {expr}, mask=mask)
'''


def _git_repo(root: Path, repo: str, files: dict[str, str]) -> None:
    """A bare mirror at root/<owner>+<name>/repo holding ``files`` in one commit, as the fetch tool lays them out."""
    work = root / "work" / repo.replace("/", "+")
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(root), "PATH": "/usr/bin:/bin"}
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(["git", *cmd], cwd=work, check=True, env=env)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(root / repo.replace("/", "+") / "repo")],
                   check=True, env=env)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def test_labels_follow_provenance_and_materialise_round_trips(tmp_path):
    mirrors = tmp_path / "mirrors"
    _git_repo(mirrors, "a/lib", {"ops/relu.py": KERNEL.format(name="relu_kernel", expr="tl.maximum(x, 0)"),
                                 "ops/renamed.py": KERNEL.format(name="neg_kernel", expr="-x")})
    _git_repo(mirrors, "b/vendor", {"third_party/sq.py": KERNEL.format(name="sq_kernel", expr="x * x")})
    bench = [
        {"file": "relu.py", "repo": "a/lib", "output": KERNEL.format(name="relu_kernel", expr="tl.maximum(x, 0)")},
        {"file": "neg_kernel_file.py", "repo": "a/lib", "output": KERNEL.format(name="neg_kernel", expr="-x")},
        {"file": "gone.py", "repo": "a/lib", "output": KERNEL.format(name="gone_kernel", expr="x + 1")},
        {"file": "sq.py", "repo": "c/upstream", "output": KERNEL.format(name="sq_kernel", expr="x * x")},
        {"file": "other.py", "repo": "d/else", "output": KERNEL.format(name="other_kernel", expr="x - 3")},
    ]
    data = tmp_path / "data"
    (data / "tb").mkdir(parents=True)
    (data / "tb" / "bench.json").write_text(json.dumps(bench))
    manifest = tmp_path / "m.json"
    done = _run("build", "--repos", "a/lib", "b/vendor", "--out", str(manifest), "--bench", str(data / "tb" / "bench.json"),
                "--data-root", str(data), "--mirror-root", str(mirrors))
    assert done.returncode == 0, done.stderr
    items = {i["file"]: i for i in json.loads(manifest.read_text())["items"]}
    assert (items["relu.py"]["label"], items["relu.py"]["sub_label"], items["relu.py"]["located_by"]) == (
        "present", "verbatim", "file_name")
    assert (items["neg_kernel_file.py"]["label"], items["neg_kernel_file.py"]["located_by"]) == ("present", "kernel_name")
    assert items["neg_kernel_file.py"]["train_paths"] == [{"repo": "a/lib", "path": "ops/renamed.py"}]
    assert items["gone.py"]["label"] == "unlocated"
    assert (items["sq.py"]["label"], items["sq.py"]["train_paths"][0]["repo"]) == ("copied", "b/vendor")
    assert items["other.py"]["label"] == "absent"
    out = tmp_path / "files"
    done = _run("materialise", "--manifest", str(manifest), "--out", str(out), "--mirror-root", str(mirrors))
    assert done.returncode == 0, done.stderr
    assert (out / "train" / "a__lib" / "ops" / "relu.py").read_text() == bench[0]["output"]
    missing = _run("materialise", "--manifest", str(manifest), "--out", str(tmp_path / "x"),
                   "--mirror-root", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
