"""Exact provenance: a git checkout's HEAD and dirtiness, ``KIND=PATH@REV``, rows and card carrying them."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kvdata.builders.hip_gpumode import HipGpuModeSource
from kvdata.builders.revision import git_revision, split_revision, tree_revision

SAMPLE = Path(__file__).resolve().parents[1] / "builders" / "sample"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(cwd, *args):
    return subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


def _checkout(tmp_path: Path) -> Path:
    root = tmp_path / "gpumode"
    shutil.copytree(SAMPLE / "hip_gpumode", root)
    _git(root, "init", "-q")
    _git(root, "remote", "add", "origin", "https://github.com/example/gpumode.git")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "tree")
    return root


def test_split_revision():
    assert split_revision("/data/rocBLAS@b520bc8") == ("/data/rocBLAS", "b520bc8")
    assert split_revision("/data/rocBLAS@rocm-6.3.0") == ("/data/rocBLAS", "rocm-6.3.0")
    assert split_revision("hf://datasets/org/name@main/sub") == ("hf://datasets/org/name@main/sub", None)
    assert split_revision("/data/rocBLAS") == ("/data/rocBLAS", None)
    assert split_revision("/data/x@") == ("/data/x@", None)


def test_git_checkout_head_and_dirty_reach_every_row(tmp_path):
    root = _checkout(tmp_path)
    head = _git(root, "rev-parse", "HEAD")
    rows = [r for r in HipGpuModeSource(str(root)).read() if hasattr(r, "provenance")]
    assert rows and {(r.provenance.commit, r.provenance.dirty) for r in rows} == {(head, False)}
    assert {r.provenance.repo for r in rows} == {"https://github.com/example/gpumode.git"}
    next(root.glob("hip_code/*.hip")).write_text("// edited\n")
    rows = [r for r in HipGpuModeSource(str(root)).read() if hasattr(r, "provenance")]
    assert {(r.provenance.commit, r.provenance.dirty) for r in rows} == {(head, True)}
    # untracked files do not make a tree dirty; a change outside the source's folder does not either
    (root / "notes.txt").write_text("x")
    assert git_revision(str(root / "pytorch_code_module")).dirty is False


def test_stated_revision_wins_and_tree_without_git_is_unknown(tmp_path):
    plain = tmp_path / "plain"
    shutil.copytree(SAMPLE / "hip_gpumode", plain)
    assert tree_revision(str(plain)).commit is None
    source = HipGpuModeSource(f"{plain}@b520bc8")
    assert source.path == str(plain)
    rows = [r for r in source.read() if hasattr(r, "provenance")]
    assert rows and {r.provenance.commit for r in rows} == {"b520bc8"}
    assert {r.provenance.commit for r in HipGpuModeSource(str(plain), commit="v1.2").read()
            if hasattr(r, "provenance")} == {"v1.2"}
    assert source.origin().commit == "b520bc8" and source.origin().license == "Apache-2.0"
