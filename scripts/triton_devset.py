"""A development set of real Triton code for evaluating the overlap audit, labelled by provenance.

The synthetic and planted test sets (``tests/triton_suite``) say what an audit does on code we wrote. This set
says what it does on code people wrote: the training side is every Triton file of a few public repositories at one
commit each, and every TritonBench-G item is labelled by where it came from (its ``repo`` field), not by any
similarity score, so the labels cannot share a blind spot with the audit being evaluated.

Only a manifest is stored (``audit/devsets/tritonbench_g_real.json``: repository, commit, paths, labels). The
fetched source is never committed; ``materialise`` writes it out again from local git mirrors.

    python scripts/triton_devset.py build --repos ModelTC/lightllm FlagOpen/FlagGems ... \\
        --out audit/devsets/tritonbench_g_real.json
    python scripts/triton_devset.py materialise --manifest audit/devsets/tritonbench_g_real.json --out DIR
    python scripts/triton_devset.py summary --manifest audit/devsets/tritonbench_g_real.json

Mirrors are bare git directories at ``<mirror-root>/<owner>+<name>/repo`` (or ``<mirror-root>/<owner>+<name>``),
the layout the ``fetch`` tool produces under ``/work/.mirror``.

Rules (also written into the manifest's ``rules``):

* Training files: ``.py`` blobs at the commit, at most ``--max-bytes`` bytes, whose text has ``@triton.jit``,
  ``@triton.autotune`` or ``@triton.heuristics``, or a bare ``@jit``/``@autotune``/``@heuristics`` in a file that
  imports that name ``from triton``. More than ``--max-files`` in all is an error (pass fewer repositories).
* Item labels. The item's repository was fetched and holds a training file with the item's base name, or (the
  benchmark renamed most files) files that define a Triton kernel of one of the item's kernel names:
  ``present`` (``train_paths`` = every such path, ``located_by`` which rule; ``sub_label`` ``verbatim`` when one of
  them equals the item's ``output`` once every line's trailing whitespace and every blank line are dropped, else
  ``edited`` when a kernel of the item and the repository's kernel of that name share at least ``EDITED_RATIO`` of
  their tokens by ``difflib`` (comments dropped), else ``rewritten``). Fetched but neither: ``unlocated`` (removed; not for scoring). Not fetched: ``absent``, or ``unknown`` for
  repositories whose code is widely copied into others (triton-lang/triton, openai/triton, pytorch/pytorch,
  Dao-AILab/flash-attention, facebookresearch/xformers), since such code may well be in the training side anyway;
  ``copied`` instead when another fetched repository defines a kernel of one of its kernel names sharing at least
  ``EDITED_RATIO`` of its lines (the tutorials and vendored libraries that repositories carry).
* Splits are by repository, never splitting one: fetched repositories sorted by sha256 of ``owner/name``, the first
  ceil(n/2) ``tune`` and the rest ``heldout``; items inherit their repository's split. Items of repositories not
  fetched: ``tune`` when sha256 of ``owner/name`` is even as an integer, else ``heldout``.

Standard library only; git is run as a subprocess.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Iterable, Iterator

DEFAULT_BENCH = "/work/shared/data/tritonbench/TritonBench_G_v1.json"
DEFAULT_DATA_ROOT = "/work/shared/data"
DEFAULT_MIRROR_ROOT = "/work/.mirror"
WIDELY_COPIED = ("triton-lang/triton", "openai/triton", "pytorch/pytorch", "Dao-AILab/flash-attention",
                 "facebookresearch/xformers")
LABELS = ("present", "copied", "unlocated", "absent", "unknown")
SPLITS = ("tune", "heldout")

_TRITON_DECORATOR = re.compile(r"@triton\.(?:jit|autotune|heuristics)\b")
_FROM_TRITON_IMPORT = re.compile(r"^[ \t]*from[ \t]+triton[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_BARE_DECORATOR = re.compile(r"^[ \t]*@(jit|autotune|heuristics)\b", re.M)


class DevsetError(Exception):
    """A problem the user has to fix (missing mirror, commit or path; bad manifest); printed as one line."""


# --------------------------------------------------------------------------- git


def mirror_git_dir(mirror_root: str | Path, repo: str) -> Path:
    """The bare git directory of ``repo`` under ``mirror_root``; DevsetError when there is none."""
    owner, _, name = repo.partition("/")
    if not owner or not name or "/" in name:
        raise DevsetError(f"repository {repo!r} is not owner/name")
    base = Path(mirror_root) / f"{owner}+{name}"
    for cand in (base / "repo", base):
        if cand.is_dir() and subprocess.run(["git", "--git-dir", str(cand), "rev-parse", "--git-dir"],
                                            capture_output=True).returncode == 0:
            return cand
    raise DevsetError(f"no git mirror of {repo} at {base} (fetch it first, e.g. the fetch tool's github:{repo})")


def _git(git_dir: Path, *args: str) -> bytes:
    """Run one git command in ``git_dir``; its stdout, or DevsetError with git's message."""
    proc = subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True)
    if proc.returncode != 0:
        raise DevsetError(f"git {' '.join(args)} in {git_dir} failed: "
                          f"{proc.stderr.decode(errors='replace').strip().splitlines()[-1:] or ['?']}")
    return proc.stdout


def head_commit(git_dir: Path) -> str:
    """The full sha of HEAD."""
    return _git(git_dir, "rev-parse", "HEAD^{commit}").decode().strip()


def has_commit(git_dir: Path, commit: str) -> bool:
    """Whether the mirror holds ``commit`` (a snapshot taken later may have lost it to a force-push)."""
    return subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"],
                          capture_output=True).returncode == 0


def list_blobs(git_dir: Path, commit: str) -> list[tuple[str, int]]:
    """(path, size) of every regular-file blob at ``commit`` (symlinks, submodules, absent blobs left out)."""
    out = _git(git_dir, "ls-tree", "-r", "-l", "-z", commit)
    rows = []
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, _, path = rec.partition(b"\t")
        mode, typ, _sha, size = meta.split()
        if typ != b"blob" or mode == b"120000" or not size.isdigit():
            continue  # size "BAD": the snapshot left the blob out (files of 4 MiB and more)
        rows.append((path.decode("utf-8", errors="surrogateescape"), int(size)))
    return rows


def read_blobs(git_dir: Path, commit: str, paths: Iterable[str]) -> Iterator[tuple[str, bytes | None]]:
    """(path, content) for each ``commit:path`` through one ``git cat-file --batch``; content None when missing.

    One process for all files: a repository of several hundred Triton files reads in well under a second.
    """
    paths = list(paths)
    if not paths:
        return
    proc = subprocess.Popen(["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    # One request at a time, each answered before the next (git flushes after every object unless --buffer),
    # so neither pipe can fill up and block the other.
    try:
        for path in paths:
            if "\n" in path:
                raise DevsetError(f"path with a newline cannot be read: {path!r}")
            proc.stdin.write(f"{commit}:{path}\n".encode("utf-8", errors="surrogateescape"))
            proc.stdin.flush()
            header = proc.stdout.readline().decode().split()
            if len(header) != 3 or header[1] == "missing":
                yield path, None
                continue
            size = int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after each object
            yield path, data
    finally:
        proc.stdin.close()
        proc.wait()


# --------------------------------------------------------------------------- rules


def is_triton_source(text: str) -> bool:
    """Whether a Python file defines Triton kernels (see the module docstring for the exact rule)."""
    if _TRITON_DECORATOR.search(text):
        return True
    imported = set()
    for m in _FROM_TRITON_IMPORT.finditer(text):
        imported.update(re.findall(r"\b(jit|autotune|heuristics)\b(?!\s+as\b)", m.group(1)))
    return any(m.group(1) in imported for m in _BARE_DECORATOR.finditer(text))


def normalise(text: str) -> str:
    """Text with every line's trailing whitespace and every blank line dropped (the ``verbatim`` test)."""
    return "\n".join(line.rstrip() for line in text.splitlines() if line.strip())


def sha256_int(text: str) -> int:
    """sha256 of a UTF-8 string as an integer (the split hash)."""
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def assign_repo_splits(repos: Iterable[str]) -> dict[str, str]:
    """Fetched repositories sorted by sha256 of their name: the first ceil(n/2) ``tune``, the rest ``heldout``."""
    ordered = sorted(set(repos), key=sha256_int)
    n_tune = (len(ordered) + 1) // 2
    return {r: ("tune" if i < n_tune else "heldout") for i, r in enumerate(ordered)}


def unfetched_split(repo: str) -> str:
    """Split of a repository that was not fetched: ``tune`` when sha256 of its name is even."""
    return "tune" if sha256_int(repo) % 2 == 0 else "heldout"


def _safe_rel_path(path: str) -> bool:
    """Whether a manifest path stays inside its repository folder when written out."""
    p = Path(path)
    return bool(path) and not p.is_absolute() and ".." not in p.parts and "\\" not in path


# --------------------------------------------------------------------------- build


def collect_repo(git_dir: Path, max_bytes: int) -> tuple[str, list[str], dict[str, str]]:
    """(HEAD commit, sorted training paths, path -> text) of one mirror."""
    commit = head_commit(git_dir)
    cands = [p for p, size in list_blobs(git_dir, commit) if p.endswith(".py") and size <= max_bytes]
    texts = {}
    for path, data in read_blobs(git_dir, commit, cands):
        if data is None:
            raise DevsetError(f"{git_dir}: {commit}:{path} listed but unreadable")
        text = data.decode("utf-8", errors="replace")
        if is_triton_source(text):
            texts[path] = text
    return commit, sorted(texts), texts


_KERNEL_DEF = re.compile(r"^[ \t]*@(?:triton\.)?(?:jit|autotune|heuristics)\b[^\n]*\n(?:[ \t]*@[^\n]*\n|[ \t]*[^\n]*\)[ \t]*\n)*?"
                         r"[ \t]*def[ \t]+(\w+)[ \t]*\(", re.M)
#: difflib ratio (item kernel text vs the repository's kernel of that name) from which an edit counts as light
EDITED_RATIO = 0.6


def kernel_sources(text: str) -> dict[str, str]:
    """{name: source} of the decorated Triton kernels of a file: from the ``def`` line to the next line indented no
    deeper (a plain text cut, so a file that does not parse still yields its kernels)."""
    lines = text.splitlines()
    starts = {}
    for m in _KERNEL_DEF.finditer(text):
        line_no = text.count("\n", 0, m.start(1))
        starts.setdefault(m.group(1), line_no)
    out = {}
    for name, i in starts.items():
        indent = len(lines[i]) - len(lines[i].lstrip())
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            j += 1
        out[name] = normalise("\n".join(lines[i:j]))
    return out


_TOKEN = re.compile(r"\w+|[^\w\s]")
_COMMENT = re.compile(r"#[^\n]*")


def _ratio(a: str, b: str) -> float:
    """``difflib``'s ratio of two kernels' token sequences, comments dropped: how much of the code is the same,
    whatever its layout (a plain text comparison, none of the audit's measures)."""
    import difflib

    ta, tb = (_TOKEN.findall(_COMMENT.sub("", t)) for t in (a, b))
    return difflib.SequenceMatcher(None, ta, tb, autojunk=False).ratio()


def _copies(text: str, kernels: dict[str, dict[str, dict[str, str]]]):
    """(sub_label, train_paths) of the files of any fetched repository that define a kernel of one of ``text``'s
    kernel names sharing at least ``EDITED_RATIO`` of its lines (``difflib``), or None: an item whose own repository
    was not fetched may still be in the training side, copied into another (tutorials, vendored libraries)."""
    mine = kernel_sources(text)
    found, best = [], 0.0
    for repo, files in kernels.items():
        for path, theirs in files.items():
            ratios = [_ratio(src, theirs[name]) for name, src in mine.items() if name in theirs]
            if ratios and max(ratios) >= EDITED_RATIO:
                found.append({"repo": repo, "path": path})
                best = max(best, max(ratios))
    if not found:
        return None
    return ("verbatim" if best >= 0.999 else "edited"), found


def label_items(bench: list[dict], fetched: dict[str, dict[str, str]],
                repo_split: dict[str, str]) -> list[dict]:
    """Provenance labels and splits of every benchmark item (see the module docstring)."""
    by_lower = {r.lower(): r for r in fetched}
    copied = {r.lower() for r in WIDELY_COPIED}
    kernels = {repo: {p: kernel_sources(t) for p, t in texts.items()} for repo, texts in fetched.items()}
    items = []
    for index, row in enumerate(bench):
        repo, file = row["repo"], row["file"]
        item = {"index": index, "file": file, "repo": repo, "label": None, "sub_label": None,
                "located_by": None, "split": None, "train_paths": []}
        fetched_name = by_lower.get(repo.lower())
        if fetched_name is None:
            item["label"] = "unknown" if repo.lower() in copied else "absent"
            item["split"] = unfetched_split(repo)
            elsewhere = _copies(row["output"], kernels)
            if elsewhere:             # another fetched repository carries a kernel of its name, nearly as it is
                item.update(label="copied", sub_label=elsewhere[0], located_by="kernel_name_elsewhere",
                            train_paths=elsewhere[1])
            items.append(item)
            continue
        texts = fetched[fetched_name]
        item["split"] = repo_split[fetched_name]
        base = os.path.basename(file)
        mine = kernel_sources(row["output"])
        paths = [p for p in sorted(texts) if os.path.basename(p) == base]
        located = "file_name"
        if not paths and mine:        # renamed file: the repository's files that define one of its kernels
            paths = [p for p in sorted(texts) if set(mine) & set(kernels[fetched_name][p])]
            located = "kernel_name"
        if not paths:
            item["label"] = "unlocated"
            items.append(item)
            continue
        want = normalise(row["output"])
        if any(normalise(texts[p]) == want for p in paths):
            sub = "verbatim"
        else:
            best = max((_ratio(src, kernels[fetched_name][p][name]) for p in paths for name, src in mine.items()
                        if name in kernels[fetched_name][p]), default=_ratio(want, normalise(texts[paths[0]])))
            sub = "edited" if best >= EDITED_RATIO else "rewritten"
        item.update(label="present", sub_label=sub, located_by=located,
                    train_paths=[{"repo": fetched_name, "path": p} for p in paths])
        items.append(item)
    return items


def count(manifest: dict) -> dict:
    """Counts per split and label (present split into verbatim/edited), repositories and files per split."""
    out: dict = {"items": len(manifest["items"]), "repos": len(manifest["repos"]),
                 "train_files": sum(len(r["files"]) for r in manifest["repos"]), "by_split": {}}
    for split in SPLITS:
        its = [i for i in manifest["items"] if i["split"] == split]
        labels = Counter(i["label"] for i in its)
        subs = Counter(i["sub_label"] for i in its if i["label"] == "present")
        reps = [r for r in manifest["repos"] if r["split"] == split]
        out["by_split"][split] = {
            "items": len(its),
            **{lab: labels.get(lab, 0) for lab in LABELS},
            "present_verbatim": subs.get("verbatim", 0), "present_edited": subs.get("edited", 0),
            "present_rewritten": subs.get("rewritten", 0),
            "repos": len(reps), "train_files": sum(len(r["files"]) for r in reps),
        }
    totals = Counter(i["label"] for i in manifest["items"])
    out["by_label"] = {lab: totals.get(lab, 0) for lab in LABELS}
    subs = Counter(i["sub_label"] for i in manifest["items"] if i["label"] == "present")
    for sub in ("verbatim", "edited", "rewritten"):
        out["by_label"][f"present_{sub}"] = subs.get(sub, 0)
    return out


def build(repos: list[str], out: Path, bench_path: Path, data_root: Path, mirror_root: Path,
          max_files: int, max_bytes: int, created: str) -> dict:
    """Collect training files from the mirrors, label the benchmark, write the manifest; returns it."""
    if len({r.lower() for r in repos}) != len(repos):
        raise DevsetError("a repository is named twice in --repos")
    raw = bench_path.read_bytes()
    bench = json.loads(raw)
    fetched_texts: dict[str, dict[str, str]] = {}
    repo_rows = []
    for repo in repos:
        git_dir = mirror_git_dir(mirror_root, repo)
        commit, paths, texts = collect_repo(git_dir, max_bytes)
        fetched_texts[repo] = texts
        repo_rows.append({"repo": repo, "commit": commit, "split": None, "files": paths})
        print(f"{repo}@{commit[:12]}: {len(paths)} training files", file=sys.stderr)
    total = sum(len(r["files"]) for r in repo_rows)
    if total > max_files:
        raise DevsetError(f"{total} training files > --max-files {max_files}; pass fewer repositories")
    repo_split = assign_repo_splits(repos)
    for r in repo_rows:
        r["split"] = repo_split[r["repo"]]
    repo_rows.sort(key=lambda r: r["repo"].lower())
    try:
        bench_rel = bench_path.resolve().relative_to(data_root.resolve()).as_posix()
    except ValueError:
        bench_rel = bench_path.as_posix()
    manifest = {
        "benchmark": {"path": bench_rel, "sha256": hashlib.sha256(raw).hexdigest(), "items": len(bench)},
        "created": created,
        "rules": {
            "training_file": ".py blob at the commit, <= %d bytes, with @triton.jit/autotune/heuristics "
                             "(or bare @jit/@autotune/@heuristics imported from triton)" % max_bytes,
            "present": "item's repo fetched and a training file there has the item's base name, or else defines a "
                       "Triton kernel of one of the item's kernel names (located_by)",
            "edited": "not verbatim; a kernel of the item shares >= %g of its tokens (difflib) with the repo's kernel "
                      "of that name; else rewritten" % EDITED_RATIO,
            "verbatim": "a train_paths file equals the item's output after dropping trailing whitespace "
                        "and blank lines",
            "unlocated": "item's repo fetched, no training file of that base name or kernel name (not for scoring)",
            "absent": "item's repo not fetched, and no fetched repo has a kernel of its kernels' names sharing "
                      ">= %g of its tokens" % EDITED_RATIO,
            "copied": "item's repo not fetched, but a fetched repo has a kernel of one of its kernels' names sharing "
                      ">= %g of its tokens (difflib): in the training side by way of a copy" % EDITED_RATIO,
            "unknown": "item's repo not fetched and its code is widely copied: " + ", ".join(WIDELY_COPIED),
            "split": "fetched repos sorted by sha256(owner/name): first ceil(n/2) tune, rest heldout; "
                     "items of repos not fetched: tune iff sha256(owner/name) is even",
        },
        "repos": repo_rows,
        "items": label_items(bench, fetched_texts, repo_split),
    }
    manifest["counts"] = count(manifest)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return manifest


# --------------------------------------------------------------------------- materialise / summary


def load_manifest(path: Path) -> dict:
    """The manifest JSON, checked for the keys the other commands use."""
    try:
        manifest = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise DevsetError(f"cannot read manifest {path}: {exc}") from exc
    if not all(k in manifest for k in ("repos", "items")):
        raise DevsetError(f"{path} is not a dev-set manifest (no repos/items)")
    return manifest


def materialise(manifest: dict, out: Path, mirror_root: Path) -> dict[str, int]:
    """Write every training file to ``out/train/<owner>__<name>/<path>``; files written per repository.

    Every mirror and commit is checked before anything is written, so a missing one fails fast.
    """
    plan = []
    for r in manifest["repos"]:
        git_dir = mirror_git_dir(mirror_root, r["repo"])
        if not has_commit(git_dir, r["commit"]):
            raise DevsetError(f"mirror {git_dir} of {r['repo']} lacks commit {r['commit']} (re-fetch or rebuild)")
        bad = [p for p in r["files"] if not _safe_rel_path(p)]
        if bad:
            raise DevsetError(f"{r['repo']}: unsafe path in manifest: {bad[0]!r}")
        plan.append((r, git_dir))
    written = {}
    for r, git_dir in plan:
        dest = out / "train" / r["repo"].replace("/", "__")
        n = 0
        for path, data in read_blobs(git_dir, r["commit"], r["files"]):
            if data is None:
                raise DevsetError(f"{r['repo']}@{r['commit'][:12]} has no file {path}")
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            n += 1
        written[r["repo"]] = n
    return written


def summary_lines(manifest: dict) -> list[str]:
    """Human-readable counts per split and label, recomputed from the items (not the stored counts)."""
    c = count(manifest)
    lines = [f"benchmark {manifest.get('benchmark', {}).get('path')} sha256 "
             f"{str(manifest.get('benchmark', {}).get('sha256'))[:12]}  created {manifest.get('created')}",
             f"{c['repos']} repos, {c['train_files']} training files, {c['items']} items",
             f"{'split':8} {'repos':>5} {'files':>6} {'items':>5} {'present':>7} {'verbatim':>8} {'edited':>6} "
             f"{'rewritten':>9} {'copied':>6} {'unlocated':>9} {'absent':>6} {'unknown':>7}"]
    for split in SPLITS:
        s = c["by_split"][split]
        lines.append(f"{split:8} {s['repos']:>5} {s['train_files']:>6} {s['items']:>5} {s['present']:>7} "
                     f"{s['present_verbatim']:>8} {s['present_edited']:>6} {s['present_rewritten']:>9} "
                     f"{s['copied']:>6} {s['unlocated']:>9} {s['absent']:>6} "
                     f"{s['unknown']:>7}")
    b = c["by_label"]
    lines.append(f"{'all':8} {c['repos']:>5} {c['train_files']:>6} {c['items']:>5} {b['present']:>7} "
                 f"{b['present_verbatim']:>8} {b['present_edited']:>6} {b['present_rewritten']:>9} "
                 f"{b['copied']:>6} {b['unlocated']:>9} {b['absent']:>6} "
                 f"{b['unknown']:>7}")
    for split in SPLITS:
        reps = ", ".join(r["repo"] for r in manifest["repos"] if r["split"] == split)
        lines.append(f"{split} repos: {reps}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Command line: build / materialise / summary."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="make the manifest from local mirrors of the named repositories")
    b.add_argument("--repos", nargs="+", required=True, help="owner/name of each fetched repository")
    b.add_argument("--out", required=True, type=Path, help="manifest JSON to write")
    b.add_argument("--bench", type=Path, default=Path(DEFAULT_BENCH), help="TritonBench_G_v1.json")
    b.add_argument("--data-root", type=Path, default=Path(DEFAULT_DATA_ROOT),
                   help="folder the benchmark path is recorded relative to")
    b.add_argument("--mirror-root", type=Path, default=Path(DEFAULT_MIRROR_ROOT))
    b.add_argument("--max-files", type=int, default=3000)
    b.add_argument("--max-bytes", type=int, default=100_000)
    b.add_argument("--created", default=datetime.date.today().isoformat(), help="date recorded (default today)")
    m = sub.add_parser("materialise", help="write the training files out of the mirrors")
    m.add_argument("--manifest", required=True, type=Path)
    m.add_argument("--out", required=True, type=Path, help="files go to OUT/train/<owner>__<name>/<path>")
    m.add_argument("--mirror-root", type=Path, default=Path(DEFAULT_MIRROR_ROOT))
    s = sub.add_parser("summary", help="counts per split and label")
    s.add_argument("--manifest", required=True, type=Path)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "build":
            manifest = build(args.repos, args.out, args.bench, args.data_root, args.mirror_root,
                             args.max_files, args.max_bytes, args.created)
            print("\n".join(summary_lines(manifest)))
            print(f"wrote {args.out}")
        elif args.cmd == "materialise":
            written = materialise(load_manifest(args.manifest), args.out, args.mirror_root)
            for repo, n in written.items():
                print(f"{n:6} {repo}")
            print(f"{sum(written.values()):6} files in {len(written)} repos -> {args.out / 'train'}")
        else:
            print("\n".join(summary_lines(load_manifest(args.manifest))))
    except DevsetError as exc:
        print(f"triton_devset: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
