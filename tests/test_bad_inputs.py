"""Mistakes a new user makes with every `kvdata` command, run through the real CLI.

Written from the README and each command's --help only. Every case runs `python -m kvdata ...` in a
subprocess, in a fresh folder, with the Hub unreachable (HF_ENDPOINT=http://127.0.0.1:9, HF_HUB_OFFLINE
unset) unless the case is about HF_HUB_OFFLINE=1, and checks, through `kv()`:

1. success (exit 0), or a one-line error: exit 1 (2 for click usage errors, whose "Usage:" and "Try ...
   --help" lines are allowed on top), no "Traceback", at most 2 non-empty stderr lines once progress bars
   are left out, and the error names the offending file or option;
2. no file the user had before (in the work folder, and the shared sample build) is changed or deleted,
   and new files appear only where the command was told to write;
3. `must_fail=True` where the mistake makes the result meaningless: exit 0 is then a failure;
4. `hub=True`: a Hub that cannot be reached fails within HUB_BOUND_S seconds.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TIMEOUT_S = 120
HUB_BOUND_S = 20.0
UNREACHABLE = "http://127.0.0.1:9"

# A progress-bar fragment (tqdm), e.g. "triton_table: 0 rec [00:00, ? rec/s]" or "  10%|█  | 1/10 [00:01<...".
_PROGRESS = re.compile(r"\d+%\||\[\d\d:\d\d|/s\]|it/s|rec/s")


# --------------------------------------------------------------------------------------------- helpers


@dataclass
class Result:
    rc: int
    stdout: str
    stderr: str
    elapsed: float

    @property
    def error_lines(self) -> list[str]:
        """Non-empty stderr lines, progress bars and click's Usage/Try lines left out."""
        out = []
        for seg in re.split(r"[\r\n]", self.stderr):
            seg = seg.strip()
            if not seg or _PROGRESS.search(seg):
                continue
            if self.rc == 2 and (seg.startswith("Usage:") or seg.startswith("Try '")):
                continue
            out.append(seg)
        return out


def _snapshot(roots) -> dict[str, str]:
    files = {}
    for root in roots:
        root = Path(root)
        if not root.exists():
            continue
        for p in sorted(root.rglob("*")):
            if p.is_file() and not p.is_symlink():
                files[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return files


def _env(offline: bool) -> dict[str, str]:
    env = dict(os.environ)
    for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "KVDATA_DEBUG"):
        env.pop(k, None)
    env["HF_ENDPOINT"] = UNREACHABLE
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    return env


def _out_of(args) -> list[str]:
    outs = []
    for flag in ("--out", "--out-dir"):
        if flag in args:
            outs.append(args[args.index(flag) + 1])
    return outs


def kv(args, cwd: Path, *, names=(), must_fail=False, hub=False, offline=False, out=None, watch=()):
    """Run `kvdata ARGS` in CWD and check the four rules; return the Result.

    names: the error must mention one of these (the offending file/option). out: where the command may add
    files (default: the values of --out/--out-dir; paths starting with that value, suffix stripped, count).
    watch: other folders whose files must not change (the shared sample build is always watched).
    """
    args = [str(a) for a in args]
    roots = [cwd, *watch, *_WATCH_ALWAYS]
    before = _snapshot(roots)
    t0 = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-m", "kvdata", *args], cwd=cwd, env=_env(offline),
                           capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        pytest.fail(f"kvdata {' '.join(args)}: still running after {TIMEOUT_S} s (hung)\n--- stderr\n{err[-1500:]}",
                    pytrace=False)
    r = Result(p.returncode, p.stdout, p.stderr, time.monotonic() - t0)
    after = _snapshot(roots)
    both = f"--- stdout\n{r.stdout[-2000:]}\n--- stderr\n{r.stderr[-3000:]}"
    problems = []

    # Rule 2: the user's files are untouched; new files only where told to write.
    changed = [f for f, h in before.items() if f in after and after[f] != h]
    deleted = [f for f in before if f not in after]
    if changed:
        problems.append(f"user files changed: {changed}")
    if deleted:
        problems.append(f"user files deleted: {deleted}")
    allowed = [str((cwd / o).resolve()) for o in (out if out is not None else _out_of(args))]
    allowed += [str(Path(a).with_suffix("")) for a in allowed]
    stray = [f for f in after if f not in before and not any(f.startswith(a) for a in allowed)]
    if stray:
        problems.append(f"files written where not asked: {stray[:5]}")

    # Rule 1: success or a one-line error.
    if "Traceback" in r.stdout or "Traceback" in r.stderr:
        problems.append("printed a Traceback")
    if r.rc != 0:
        if r.rc not in (1, 2):
            problems.append(f"exit code {r.rc}, expected 1 (or 2 for a usage error)")
        lines = r.error_lines
        if not lines:
            problems.append("non-zero exit with no error message on stderr")
        if len(lines) > 2:
            problems.append(f"error is {len(lines)} lines, not one: {lines[:4]}")
        text = "\n".join(lines)
        if names and not any(n in text for n in names):
            problems.append(f"error does not name any of {list(names)}: {lines[-1:] if lines else ''}")
        # Rule 4: an unreachable Hub fails fast.
        if hub and r.elapsed > HUB_BOUND_S:
            problems.append(f"took {r.elapsed:.1f} s to fail on an unreachable Hub (bound {HUB_BOUND_S} s)")
    elif must_fail:
        # Rule 3: a meaningless result must not exit 0.
        problems.append("exit 0 although the result is meaningless")
    if problems:
        pytest.fail(f"kvdata {' '.join(args)} (exit {r.rc}, {r.elapsed:.1f} s):\n- " + "\n- ".join(problems)
                    + f"\n{both}", pytrace=False)
    return r


_WATCH_ALWAYS: list[Path] = []

KB_CODE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """Applies {op}."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return {expr}


batch_size = 16
dim = 64


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''

KB_ROWS = [
    {"name": "19_ReLU", "level": 1, "problem_id": 19, "code": KB_CODE.format(op="ReLU", expr="torch.relu(x)")},
    {"name": "23_Softmax", "level": 1, "problem_id": 23,
     "code": KB_CODE.format(op="softmax", expr="torch.softmax(x, dim=1)")},
]

TBG_ITEMS = [{
    "file": "add_kernel.py", "repo": "someone/kernels", "star": "3", "difficulty": "1",
    "simp_instru": "Write an elementwise add.", "comp_instru": "Write an elementwise add in Triton.",
    "output": "import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
              "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
              "    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
              "    mask = offs < n\n    x = tl.load(x_ptr + offs, mask=mask)\n"
              "    y = tl.load(y_ptr + offs, mask=mask)\n    tl.store(out_ptr + offs, x + y, mask=mask)\n",
}]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def user_project(folder: Path) -> Path:
    """A folder holding the user's own unrelated files."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text("# My thesis project\n\nNotes I care about.\n")
    (folder / "data" / "notes.txt").write_text("run 3 looked odd\n")
    (folder / "report.md").write_text("# My own report\n")
    return folder


@pytest.fixture(scope="session")
def sample(tmp_path_factory) -> Path:
    """The bundled sample, built once per session (`kvdata build --sample --out DIR`)."""
    out = tmp_path_factory.mktemp("kv_sample") / "sample"
    p = subprocess.run([sys.executable, "-m", "kvdata", "build", "--sample", "--out", str(out), "--quiet"],
                       env=_env(False), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert (out / "data" / "triton").is_dir()
    _WATCH_ALWAYS[:] = [out]
    return out


@pytest.fixture
def work(tmp_path, sample) -> Path:
    d = tmp_path / "work"
    d.mkdir()
    return d


def triton_rows(sample: Path, n: int = 2) -> list[dict]:
    import pyarrow.parquet as pq

    shard = sorted((sample / "data" / "triton").glob("*.parquet"))[0]
    cols = ["id", "language", "task_name", "pytorch_code", "kernel_code"]
    return pq.read_table(shard, columns=cols).slice(0, n).to_pylist()


def corrupt_copy(sample: Path, dest: Path, config: str = "triton") -> Path:
    """A copy of the built sample whose one `config` shard is truncated (a broken download)."""
    shutil.copytree(sample, dest)
    shard = sorted((dest / "data" / config).glob("*.parquet"))[0]
    shard.write_bytes(shard.read_bytes()[:3000])
    return dest


def immutable(folder: Path) -> bool:
    """Make FOLDER unwritable even for root (chattr +i); False where that is not possible."""
    folder.mkdir(parents=True, exist_ok=True)
    if shutil.which("chattr") is None:
        return False
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        return False
    try:
        (folder / ".probe").write_text("x")
    except OSError:
        return True
    (folder / ".probe").unlink()
    subprocess.run(["chattr", "-i", str(folder)], capture_output=True)
    return False


def release(folder: Path) -> None:
    subprocess.run(["chattr", "-i", str(folder)], capture_output=True)


AUDIT_FAST = ["--measures", "lexical", "--quiet"]


# ------------------------------------------------------------------------------------------------ build


def test_build_typo_source_path(work):
    """build: --source points at a misspelt file; expect a one-line error naming it."""
    kv(["build", "--source", "triton_table=kernals.jsonl", "--out", "built"], work, names=["kernals.jsonl"])


def test_build_empty_jsonl(work):
    """build: the table is an empty file; 0 rows is meaningless, so a non-zero exit naming the file/source."""
    (work / "kernels.jsonl").write_text("")
    kv(["build", "--source", "triton_table=kernels.jsonl", "--out", "built"], work,
       must_fail=True, names=["kernels.jsonl", "triton_table"])


def test_build_empty_jsonl_allow_empty(work):
    """build: an empty table with the explicit --allow-empty flag; exit 0 is what the user asked for."""
    (work / "kernels.jsonl").write_text("")
    kv(["build", "--source", "triton_table=kernels.jsonl", "--out", "built", "--allow-empty"], work)


def test_build_csv_table(work):
    """build: a CSV given to triton_table (which reads JSONL/parquet); expect an error naming the file."""
    (work / "kernels.csv").write_text("id,kernel_code,license\na,\"@triton.jit\",MIT\n")
    kv(["build", "--source", "triton_table=kernels.csv", "--out", "built"], work,
       must_fail=True, names=["kernels.csv", "triton_table"])


def test_build_kernelbench_file_as_tritonbench(work):
    """build: a KernelBench JSONL given as triton_github (TritonBench-G JSON form); 0 rows must fail, naming it."""
    write_jsonl(work / "kernelbench_v0.1.jsonl", KB_ROWS)
    kv(["build", "--source", "triton_github=kernelbench_v0.1.jsonl", "--out", "built"], work,
       must_fail=True, names=["kernelbench_v0.1.jsonl", "triton_github"])


def test_build_truncated_parquet_source(work, sample):
    """build: a truncated (half-downloaded) KernelBook parquet; expect a failure naming the file or source."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(triton_rows(sample)), work / "kernelbook.parquet")
    data = (work / "kernelbook.parquet").read_bytes()
    (work / "kernelbook.parquet").write_bytes(data[: len(data) // 2])
    kv(["build", "--source", "triton_kernelbook=kernelbook.parquet", "--out", "built"], work,
       must_fail=True, names=["kernelbook.parquet", "triton_kernelbook"])


def test_build_out_holds_user_files(work):
    """build: --out is the user's project folder (README.md, data/notes.txt, report.md); none may change."""
    user_project(work / "myproject")
    kv(["build", "--sample", "--out", "myproject", "--quiet"], work, names=["myproject", "--out"])


def test_build_out_is_a_file(work):
    """build: --out names an existing file; expect a usage error, the file untouched."""
    (work / "notes.txt").write_text("keep me\n")
    kv(["build", "--sample", "--out", "notes.txt", "--quiet"], work, names=["notes.txt", "--out"])


def test_build_no_source(work):
    """build: --out only, no --sample/--source/--config; expect a usage error saying what is missing."""
    kv(["build", "--out", "built"], work, must_fail=True, names=["--source", "--sample", "--config"])


def test_build_broken_yaml_config(work):
    """build: --config is YAML with a syntax error; expect ONE line naming the file, not a parser dump."""
    (work / "build.yaml").write_text("sources: [\n  - kind: triton_table\n")
    kv(["build", "--config", "build.yaml", "--out", "built"], work, must_fail=True, names=["build.yaml"])


def test_build_option_typo(work, sample):
    """build: --option triton_table.licence=MIT (British spelling); expect an error naming the option."""
    write_jsonl(work / "kernels.jsonl", triton_rows(sample))
    kv(["build", "--source", "triton_table=kernels.jsonl", "--option", "triton_table.licence=MIT", "--out",
        "built"], work, must_fail=True, names=["licence"])


def test_build_threshold_as_percent(work):
    """build: --near-dup-threshold 85 (a percent, not a fraction); expect a usage error naming it."""
    kv(["build", "--sample", "--near-dup-threshold", "85", "--out", "built", "--quiet"], work,
       must_fail=True, names=["near-dup", "85"])


def test_build_hf_source_unreachable(work):
    """build: an hf:// source while the Hub is unreachable; fail fast (<20 s) in one line naming it."""
    src = "hip_gpumode=hf://datasets/amd/AIG-Datasets/v0.1/PyTorch_HIP_kernel_dataset/pytorch_hip_kernel_gpumode"
    kv(["build", "--out", "built", "--source", src], work, must_fail=True, hub=True,
       names=["hf://", "hip_gpumode", "Hub", "reach", "Connection"])


def test_build_hf_source_offline(work):
    """build: an hf:// source with HF_HUB_OFFLINE=1; fail in one line saying the Hub is off / naming it."""
    src = "hip_gpumode=hf://datasets/amd/AIG-Datasets/v0.1/PyTorch_HIP_kernel_dataset/pytorch_hip_kernel_gpumode"
    kv(["build", "--out", "built", "--source", src], work, must_fail=True, hub=True, offline=True,
       names=["hf://", "HF_HUB_OFFLINE", "offline"])


def test_build_readonly_out(work):
    """build: --out is a folder the user cannot write; expect a one-line error naming it."""
    ro = work / "readonly_out"
    if not immutable(ro):
        pytest.skip("cannot make a folder read-only here")
    try:
        kv(["build", "--sample", "--out", "readonly_out", "--quiet"], work, must_fail=True,
           names=["readonly_out"])
    finally:
        release(ro)


# ------------------------------------------------------------------------------------------------- info


def test_info_typo_folder(work):
    """info: `kvdata info smaple`; expect a usage error naming the folder."""
    kv(["info", "smaple"], work, must_fail=True, names=["smaple"])


def test_info_on_audit_folder(work):
    """info: pointed at a folder that is not a build; expect a one-line error naming it."""
    (work / "audit").mkdir()
    (work / "audit" / "report.md").write_text("# audit\n")
    kv(["info", "audit"], work, must_fail=True, names=["audit"])


def test_info_truncated_shard(work, sample):
    """info: one parquet shard of the build is truncated; the error must name the broken shard."""
    corrupt_copy(sample, work / "built")
    kv(["info", "built"], work, must_fail=True, names=["train-00000-of-00001.parquet", "data/triton"])


def test_info_accounting_missing_fields(work, sample):
    """info: accounting.json is valid JSON without its fields; the error must name accounting.json."""
    shutil.copytree(sample, work / "built")
    (work / "built" / "accounting.json").write_text("{}\n")
    kv(["info", "built"], work, must_fail=True, names=["accounting.json"])


# ---------------------------------------------------------------------------------------------- sources


def test_sources_inspect_typo(work):
    """sources --inspect: a misspelt release folder; expect an error naming it."""
    kv(["sources", "--inspect", "AIG-Dataset/"], work, must_fail=True, names=["AIG-Dataset"])


def test_sources_inspect_corrupt_tar(work):
    """sources --inspect: a downloaded release .tar.gz that is not gzip (a failed download); an error naming the file."""
    (work / "AIG-Datasets.tar.gz").write_bytes(b"PAR1" + b"\x00" * 96)
    kv(["sources", "--inspect", "AIG-Datasets.tar.gz"], work, must_fail=True,
       names=["AIG-Datasets.tar.gz"])


# ------------------------------------------------------------------------------------------------- push


def test_push_no_network(work, sample):
    """push: the Hub cannot be reached; fail fast (<20 s) in one line, nothing changed."""
    kv(["push", sample, "--repo", "my-org/AMDKernelVault", "--token", "hf_notreal"], work,
       must_fail=True, hub=True, names=["my-org/AMDKernelVault", "Hub", "reach"])


def test_push_offline(work, sample):
    """push: HF_HUB_OFFLINE=1; fail fast in one line."""
    kv(["push", sample, "--repo", "my-org/AMDKernelVault", "--token", "hf_notreal"], work,
       must_fail=True, hub=True, offline=True, names=["my-org/AMDKernelVault", "HF_HUB_OFFLINE", "offline", "Hub"])


def test_push_repo_without_owner(work, sample):
    """push: --repo AMDKernelVault (no OWNER/); expect a usage error naming the repo id."""
    kv(["push", sample, "--repo", "AMDKernelVault", "--dry-run"], work, must_fail=True,
       names=["AMDKernelVault", "--repo"])


def test_push_missing_repo(work, sample):
    """push: --repo forgotten; expect click's missing-option usage error."""
    kv(["push", sample, "--dry-run"], work, must_fail=True, names=["--repo"])


def test_push_not_a_build(work):
    """push: the user's own project folder instead of a build; refuse, naming it."""
    user_project(work / "myproject")
    kv(["push", "myproject", "--repo", "my-org/x", "--dry-run"], work, must_fail=True, names=["myproject"])


# --------------------------------------------------------------------------------------------- reverify


def test_reverify_data_typo(work):
    """reverify: --data smaple; expect a one-line error naming it."""
    kv(["reverify", "--subset", "triton", "--data", "smaple", "--out", "results.jsonl", "--static"], work,
       must_fail=True, names=["smaple"])


def test_reverify_subset_typo(work, sample):
    """reverify: --subset trition; expect an error naming the unknown config."""
    kv(["reverify", "--subset", "trition", "--data", sample, "--out", "results.jsonl", "--static"], work,
       must_fail=True, names=["trition"])


def test_reverify_hub_id_unreachable(work):
    """reverify: --data a Hub id while the Hub is unreachable; fail fast (<20 s) in one line."""
    kv(["reverify", "--subset", "triton", "--data", "my-org/AMDKernelVault", "--out", "results.jsonl",
        "--static"], work, must_fail=True, hub=True, names=["my-org/AMDKernelVault"])


def test_reverify_hub_id_offline(work):
    """reverify: --data a Hub id with HF_HUB_OFFLINE=1; fail fast in one line."""
    kv(["reverify", "--subset", "triton", "--data", "my-org/AMDKernelVault", "--out", "results.jsonl",
        "--static"], work, must_fail=True, hub=True, offline=True, names=["my-org/AMDKernelVault"])


def test_reverify_empty_input(work):
    """reverify: --input is an empty JSONL; nothing to verify is an error naming the file."""
    (work / "rows.jsonl").write_text("")
    kv(["reverify", "--input", "rows.jsonl", "--out", "results.jsonl", "--backend", "triton-interpreter"],
       work, must_fail=True, names=["rows.jsonl"])


def test_reverify_csv_input(work):
    """reverify: --input is a CSV; expect an error naming the file (.jsonl or .parquet expected)."""
    (work / "rows.csv").write_text("id,language,kernel_code\na,triton,x\n")
    kv(["reverify", "--input", "rows.csv", "--out", "results.jsonl", "--static"], work,
       must_fail=True, names=["rows.csv"])


def test_reverify_parquet_missing_fields(work):
    """reverify: a parquet without id/language/kernel_code; expect an error naming the file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"task": ["relu"], "code": ["x"]}), work / "rows.parquet")
    kv(["reverify", "--input", "rows.parquet", "--out", "results.jsonl", "--static"], work,
       must_fail=True, names=["rows.parquet"])


def test_reverify_truncated_parquet_input(work, sample):
    """reverify: --input is a truncated parquet; the error must name the file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(triton_rows(sample)), work / "rows.parquet")
    data = (work / "rows.parquet").read_bytes()
    (work / "rows.parquet").write_bytes(data[: len(data) // 2])
    kv(["reverify", "--input", "rows.parquet", "--out", "results.jsonl", "--static"], work,
       must_fail=True, names=["rows.parquet"])


def test_reverify_out_is_input(work, sample):
    """reverify: --out is the --input file itself; refuse rather than append results to the user's rows."""
    write_jsonl(work / "rows.jsonl", triton_rows(sample))
    kv(["reverify", "--input", "rows.jsonl", "--out", "rows.jsonl", "--backend", "triton-interpreter",
        "--limit", "1"], work, out=[], names=["rows.jsonl", "--out"])


def test_reverify_subset_and_input(work, sample):
    """reverify: both --subset/--data and --input (conflicting); expect a usage error naming them."""
    write_jsonl(work / "rows.jsonl", triton_rows(sample))
    kv(["reverify", "--subset", "triton", "--data", sample, "--input", "rows.jsonl", "--out", "results.jsonl",
        "--static"], work, must_fail=True, names=["--subset", "--input"])


def test_reverify_static_shard_out_of_range(work, sample):
    """reverify --static: --shard 3/2 (no such shard); the screen of every row is not what was asked: fail."""
    write_jsonl(work / "rows.jsonl", triton_rows(sample))
    kv(["reverify", "--input", "rows.jsonl", "--out", "screen.jsonl", "--static", "--shard", "3/2"], work,
       must_fail=True, names=["--shard", "3/2"])


def test_reverify_gpu_backend_without_gpu(work, sample):
    """reverify: --backend triton-gpu on a machine without a GPU; every sample unjudged must not exit 0."""
    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                           capture_output=True, text=True, timeout=TIMEOUT_S)
    if probe.stdout.strip() == "True":
        pytest.skip("a GPU is visible here")
    write_jsonl(work / "rows.jsonl", triton_rows(sample, 1))
    kv(["reverify", "--input", "rows.jsonl", "--out", "results.jsonl", "--backend", "triton-gpu"], work,
       must_fail=True, names=["triton-gpu", "GPU", "--backend"])


def test_reverify_corrupt_built_shard(work, sample):
    """reverify: --data is a build with a truncated shard; the error must name the shard."""
    corrupt_copy(sample, work / "built")
    kv(["reverify", "--subset", "triton", "--data", "built", "--out", "results.jsonl", "--static"], work,
       must_fail=True, names=["train-00000-of-00001.parquet", "data/triton"])


# -------------------------------------------------------------------------------------- reverify-report


def _results(work: Path, sample: Path) -> Path:
    """A real results file: one Triton row re-verified on the interpreter."""
    write_jsonl(work / "rows.jsonl", triton_rows(sample, 1))
    kv(["reverify", "--input", "rows.jsonl", "--out", "results.jsonl", "--backend", "triton-interpreter"], work)
    return work / "results.jsonl"


def test_report_on_input_rows(work, sample):
    """reverify-report: given the rows file instead of the results; expect an error naming it."""
    write_jsonl(work / "rows.jsonl", triton_rows(sample))
    kv(["reverify-report", "rows.jsonl", "--out-dir", "rep"], work, must_fail=True, names=["rows.jsonl"])


def test_report_on_build_folder(work, sample):
    """reverify-report: given the built corpus folder; expect a one-line error naming it."""
    kv(["reverify-report", sample, "--out-dir", "rep"], work, must_fail=True, names=[str(sample)])


def test_report_on_empty_file(work):
    """reverify-report: an empty results file; no report of nothing, an error naming the file."""
    (work / "results.jsonl").write_text("")
    kv(["reverify-report", "results.jsonl", "--out-dir", "rep"], work, must_fail=True, names=["results.jsonl"])


def test_report_default_dir_beside_user_report(work, sample):
    """reverify-report: no --out-dir, and the user's own report.md sits beside the results; keep it."""
    res = _results(work, sample)
    (work / "report.md").write_text("# my notes on this run\n")
    kv(["reverify-report", res.name], work, out=["results"])


def test_report_corpus_subset_typo(work, sample):
    """reverify-report: --corpus BUILD --subset trition; a drift table of nothing must be an error."""
    res = _results(work, sample)
    kv(["reverify-report", res.name, "--corpus", sample, "--subset", "trition", "--out-dir", "rep"], work,
       must_fail=True, names=["trition"])


# -------------------------------------------------------------------------------------------- audit


def test_audit_kernelbench_file_as_tritonbench(work, sample):
    """audit-overlap: --bench tritonbench-g with a KernelBench JSONL; one line naming the file, no KeyError."""
    write_jsonl(work / "kernelbench_v0.1.jsonl", KB_ROWS)
    kv(["audit-overlap", "--bench", "tritonbench-g", "--bench-path", "kernelbench_v0.1.jsonl", "--train", sample,
        "--out", "audit", *AUDIT_FAST], work, must_fail=True, names=["kernelbench_v0.1.jsonl"])


def test_audit_tritonbench_file_as_kernelbench(work, sample):
    """audit-overlap: --bench kernelbench with TritonBench-G's JSON; one line naming the file."""
    (work / "TritonBench_G_v1.json").write_text(json.dumps(TBG_ITEMS))
    kv(["audit-overlap", "--bench", "kernelbench", "--bench-path", "TritonBench_G_v1.json", "--train", sample,
        "--out", "audit", *AUDIT_FAST], work, must_fail=True, names=["TritonBench_G_v1.json"])


def test_audit_kernelbench_parquet(work, sample):
    """audit-overlap: KernelBench problems as parquet rather than JSONL; fine if read, else a named error."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(KB_ROWS), work / "kernelbench.parquet")
    kv(["audit-overlap", "--bench", "kernelbench", "--bench-path", "kernelbench.parquet", "--train", sample,
        "--out", "audit", *AUDIT_FAST], work, names=["kernelbench.parquet"])


def test_audit_train_typo(work):
    """audit-overlap: --train smaple; expect a usage error naming it."""
    write_jsonl(work / "kernelbench_v0.1.jsonl", KB_ROWS)
    kv(["audit-overlap", "--bench", "kernelbench", "--bench-path", "kernelbench_v0.1.jsonl", "--train", "smaple",
        "--out", "audit", *AUDIT_FAST], work, must_fail=True, names=["smaple"])


def test_audit_empty_bench(work, sample):
    """audit-overlap: --bench-path is an empty file; auditing against nothing must fail, naming it."""
    (work / "kernelbench_v0.1.jsonl").write_text("")
    kv(["audit-overlap", "--bench", "kernelbench", "--bench-path", "kernelbench_v0.1.jsonl", "--train", sample,
        "--out", "audit", *AUDIT_FAST], work, must_fail=True, names=["kernelbench_v0.1.jsonl"])


def test_audit_empty_train(work):
    """audit-overlap: --train is an empty JSONL; 0 training rows is meaningless: fail, naming it."""
    write_jsonl(work / "kernelbench_v0.1.jsonl", KB_ROWS)
    (work / "mined.jsonl").write_text("")
    kv(["audit-overlap", "--bench", "kernelbench", "--bench-path", "kernelbench_v0.1.jsonl", "--train",
        "mined.jsonl", "--out", "audit", *AUDIT_FAST], work, must_fail=True, names=["mined.jsonl"])


def test_audit_generic_wrong_columns(work, sample):
    """audit-overlap: --bench generic on a file without the default id/code columns; name the columns."""
    write_jsonl(work / "bench.jsonl", KB_ROWS)
    kv(["audit-overlap", "--bench", "generic", "--bench-path", "bench.jsonl", "--train", sample,
        "--out", "audit", *AUDIT_FAST], work, must_fail=True, names=["bench.jsonl", "id"])


def test_audit_out_holds_user_files(work, sample):
    """audit-overlap: --out is the user's folder with report.md, README.md, data/notes.txt; none may change."""
    write_jsonl(work / "kernelbench_v0.1.jsonl", KB_ROWS)
    user_project(work / "myproject")
    kv(["audit-overlap", "--bench", "kernelbench", "--bench-path", "kernelbench_v0.1.jsonl", "--train", sample,
        "--out", "myproject", *AUDIT_FAST], work, names=["myproject", "--out"])


def test_audit_corrupt_train_shard(work, sample):
    """audit-overlap: --train is a build with a truncated shard; the error must name the shard."""
    write_jsonl(work / "kernelbench_v0.1.jsonl", KB_ROWS)
    corrupt_copy(sample, work / "built")
    kv(["audit-overlap", "--bench", "kernelbench", "--bench-path", "kernelbench_v0.1.jsonl", "--train", "built",
        "--out", "audit", *AUDIT_FAST], work, must_fail=True, names=["train-00000-of-00001.parquet", "data/triton"])


def test_audit_kernelbench_hub_unreachable(work, sample):
    """audit-overlap: no --bench-path, so KernelBench comes from the Hub, which is unreachable: fail in <20 s, one line."""
    kv(["audit-overlap", "--bench", "kernelbench", "--train", sample, "--out", "audit", *AUDIT_FAST], work,
       must_fail=True, hub=True, names=["KernelBench", "--bench-path"])


def test_audit_kernelbench_hub_offline(work, sample):
    """audit-overlap: no --bench-path and HF_HUB_OFFLINE=1; fail fast in one line pointing at --bench-path."""
    kv(["audit-overlap", "--bench", "kernelbench", "--train", sample, "--out", "audit", *AUDIT_FAST], work,
       must_fail=True, hub=True, offline=True, names=["KernelBench", "--bench-path"])


def test_audit_embedding_model_hub_unreachable(work, sample):
    """audit-overlap: --model a Hub id while the Hub is unreachable; fail in <20 s in one line naming --model."""
    write_jsonl(work / "kernelbench_v0.1.jsonl", KB_ROWS)
    kv(["audit-overlap", "--bench", "kernelbench", "--bench-path", "kernelbench_v0.1.jsonl", "--train", sample,
        "--out", "audit", "--measures", "lexical,semantic", "--model", "sentence-transformers/all-mpnet-base-v2",
        "--quiet"], work, must_fail=True, hub=True, names=["all-mpnet-base-v2", "--model"])


# ------------------------------------------------------------------------------------------------ score

RESULTS_CSV = "model,task,compiled,correct\nours,relu,1,1\nours,softmax,0,0\nbase,relu,1,0\nbase,softmax,1,1\n"


def test_score_results_missing_correct(work):
    """score: a results table without the `correct` column; expect an error naming the file."""
    (work / "results.csv").write_text("model,task,compiled\nours,relu,1\nours,softmax,0\n")
    kv(["score", "results.csv", "--out", "score_out"], work, must_fail=True, names=["results.csv"])


def test_score_empty_csv(work):
    """score: an empty results file; nothing to score: fail, naming it."""
    (work / "results.csv").write_text("")
    kv(["score", "results.csv", "--out", "score_out"], work, must_fail=True, names=["results.csv"])


def test_score_no_inputs(work):
    """score: neither RESULTS nor --counts; expect a usage error."""
    kv(["score", "--out", "score_out"], work, must_fail=True, names=["RESULTS", "--counts"])


def test_score_counts_malformed(work):
    """score: --counts "ours=13,gpt5=9/31" (a total missing); expect an error naming --counts."""
    kv(["score", "--counts", "ours=13,gpt5=9/31", "--out", "score_out"], work, must_fail=True,
       names=["--counts", "ours=13"])


def test_score_counts_more_passed_than_total(work):
    """score: --counts "ours=40/31"; impossible totals: an error naming it."""
    kv(["score", "--counts", "ours=40/31,gpt5=9/31", "--out", "score_out"], work, must_fail=True,
       names=["ours=40/31", "--counts"])


def test_score_on_reverify_input_rows(work, sample):
    """score: the reverify INPUT rows instead of its results; expect an error naming the file."""
    write_jsonl(work / "rows.jsonl", triton_rows(sample))
    kv(["score", "rows.jsonl", "--out", "score_out"], work, must_fail=True, names=["rows.jsonl"])


def test_score_audit_is_build_folder(work, sample):
    """score: --audit points at the corpus build, not an audit; expect an error naming it."""
    (work / "results.csv").write_text(RESULTS_CSV)
    kv(["score", "results.csv", "--audit", sample, "--out", "score_out"], work, must_fail=True,
       names=[str(sample), "--audit"])


def test_score_clean_tasks_is_parquet(work, sample):
    """score: --clean-tasks given the audit's pairs.parquet instead of clean_tasks.txt; one line naming it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (work / "results.csv").write_text(RESULTS_CSV)
    pq.write_table(pa.table({"bench_id": ["relu"], "train_id": ["t1"], "flagged": [True]}),
                   work / "pairs.parquet")
    kv(["score", "results.csv", "--clean-tasks", "pairs.parquet", "--out", "score_out"], work, must_fail=True,
       names=["pairs.parquet", "--clean-tasks"])


def test_score_audit_and_clean_tasks(work):
    """score: both --audit and --clean-tasks (conflicting); expect an error naming both."""
    (work / "results.csv").write_text(RESULTS_CSV)
    (work / "audit").mkdir()
    (work / "audit" / "clean_tasks.txt").write_text("relu\nsoftmax\n")
    kv(["score", "results.csv", "--audit", "audit", "--clean-tasks", "audit/clean_tasks.txt", "--out",
        "score_out"], work, must_fail=True, names=["--audit", "--clean-tasks"])


def test_score_out_holds_user_files(work):
    """score: --out is the user's folder with their own report.md/README.md; none may change."""
    (work / "results.csv").write_text(RESULTS_CSV)
    user_project(work / "myproject")
    kv(["score", "results.csv", "--out", "myproject"], work, names=["myproject", "--out"])


def test_score_default_out_is_users_folder(work):
    """score: no --out, and the user already keeps their own notes in ./score/; they must survive."""
    (work / "results.csv").write_text(RESULTS_CSV)
    (work / "score").mkdir()
    (work / "score" / "report.md").write_text("# what I wrote about last week's scores\n")
    kv(["score", "results.csv"], work, out=["score"], names=["score", "--out"])


def test_score_readonly_out(work):
    """score: --out is a folder the user cannot write; expect a one-line error naming it."""
    (work / "results.csv").write_text(RESULTS_CSV)
    ro = work / "readonly_out"
    if not immutable(ro):
        pytest.skip("cannot make a folder read-only here")
    try:
        kv(["score", "results.csv", "--out", "readonly_out"], work, must_fail=True, names=["readonly_out"])
    finally:
        release(ro)


# ----------------------------------------------------------------------------------------------- export


def test_export_data_typo(work):
    """export: --data smaple; expect a one-line error naming it."""
    kv(["export", "--data", "smaple", "--task", "torch2triton", "--out", "sft"], work, must_fail=True,
       names=["smaple"])


def test_export_hub_id_unreachable(work):
    """export: --data a Hub id while the Hub is unreachable; fail fast (<20 s) in one line."""
    kv(["export", "--data", "amd/AIG-Datasets", "--task", "torch2triton", "--out", "sft"], work,
       must_fail=True, hub=True, names=["amd/AIG-Datasets"])


def test_export_hub_id_offline(work):
    """export: --data a Hub id with HF_HUB_OFFLINE=1; fail fast in one line."""
    kv(["export", "--data", "my-org/AMDKernelVault", "--task", "torch2triton", "--out", "sft"], work,
       must_fail=True, hub=True, offline=True, names=["my-org/AMDKernelVault"])


def test_export_out_holds_user_files(work, sample):
    """export: --out is the user's project folder; refuse, nothing changed."""
    user_project(work / "myproject")
    kv(["export", "--data", sample, "--task", "torch2triton", "--out", "myproject"], work,
       names=["myproject", "--out"])


def test_export_out_is_corpus(work, sample):
    """export: --out is the corpus folder itself; refuse, the corpus untouched."""
    kv(["export", "--data", sample, "--task", "torch2triton", "--out", sample], work, must_fail=True,
       names=[str(sample), "--out"])


def test_export_out_is_a_file(work, sample):
    """export: --out names an existing file; expect a usage error, the file untouched."""
    (work / "sft.jsonl").write_text("{}\n")
    kv(["export", "--data", sample, "--task", "torch2triton", "--out", "sft.jsonl"], work, must_fail=True,
       names=["sft.jsonl", "--out"])


def test_export_verified_is_input_rows(work, sample):
    """export: --verified given the reverify input rows, not its results; refuse, naming the file."""
    write_jsonl(work / "rows.jsonl", triton_rows(sample))
    kv(["export", "--data", sample, "--task", "torch2triton", "--verified", "rows.jsonl", "--out", "sft"], work,
       must_fail=True, names=["rows.jsonl", "--verified"])


def test_export_audit_is_build_folder(work, sample):
    """export: --audit points at the build folder; refuse, naming it."""
    kv(["export", "--data", sample, "--task", "torch2triton", "--audit", sample, "--out", "sft"], work,
       must_fail=True, names=[str(sample), "--audit"])


def test_export_license_drops_everything(work, sample):
    """export: --license GPL-3.0-only keeps no sample row; an empty training set must not exit 0."""
    kv(["export", "--data", sample, "--task", "torch2triton", "--license", "GPL-3.0-only", "--out", "sft"], work,
       must_fail=True, names=["license", "GPL"])


def test_export_max_tokens_without_tokenizer(work, sample):
    """export: --max-tokens without --tokenizer; expect an error naming both."""
    kv(["export", "--data", sample, "--task", "torch2triton", "--max-tokens", "4096", "--out", "sft"], work,
       must_fail=True, names=["--tokenizer", "--max-tokens"])


def test_export_fractions_sum_over_one(work, sample):
    """export: --val-fraction 0.6 --test-fraction 0.6; expect an error naming the fractions."""
    kv(["export", "--data", sample, "--task", "torch2triton", "--val-fraction", "0.6", "--test-fraction", "0.6",
        "--out", "sft"], work, must_fail=True, names=["fraction", "0.6"])


def test_export_dpo_wrong_task(work, sample):
    """export: --format dpo with --task qa (no pairs possible); expect an error naming dpo."""
    kv(["export", "--data", sample, "--task", "qa", "--format", "dpo", "--out", "dpo"], work, must_fail=True,
       names=["dpo"])


def test_export_template_unknown_column(work, sample):
    """export: a --template using a column that does not exist; one line naming the template."""
    (work / "prompt.j2").write_text("Rewrite {{ row.torch_code }} in Triton.\n")
    kv(["export", "--data", sample, "--task", "torch2triton", "--template", "prompt.j2", "--out", "sft"], work,
       must_fail=True, names=["prompt.j2", "template"])


def test_export_corrupt_shard(work, sample):
    """export: --data is a build with a truncated triton shard; the error must name the shard."""
    corrupt_copy(sample, work / "built")
    kv(["export", "--data", "built", "--task", "torch2triton", "--out", "sft"], work, must_fail=True,
       names=["train-00000-of-00001.parquet", "data/triton"])


def test_export_readonly_out(work, sample):
    """export: --out is a folder the user cannot write; one line naming it, no half-written files."""
    ro = work / "readonly_out"
    if not immutable(ro):
        pytest.skip("cannot make a folder read-only here")
    try:
        kv(["export", "--data", sample, "--task", "torch2triton", "--out", "readonly_out"], work,
           must_fail=True, names=["readonly_out"])
    finally:
        release(ro)
