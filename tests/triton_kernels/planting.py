"""Plant benchmark kernels, verbatim or edited, into the library files of this folder (test-time only).

The benchmark code is read from ../shared/data at test time and never stored in the repository.
:func:`build_planted_case` builds the PyPI-shaped case (benchmark items planted, edited, into multi-kernel
library files, next to absent items and look-alikes of them); :func:`synthetic_corpus` builds a corpus shaped
like the real PyPI one (1,500 files, median ~5,000 characters) for timing. Edits and look-alikes come from
:mod:`kernel_edits`.
"""
from __future__ import annotations

import ast
import json
import math
import random
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from kernel_edits import (EDITS, LOOK_ALIKES, edit_kernel, function_renames, kernel_sources, look_alike,
                          rename_args)

HERE = Path(__file__).resolve().parent
LIBRARY = HERE / "library"


def library_files() -> dict[str, str]:
    """{file name: code} of the multi-kernel library files written for these tests."""
    return {p.name: p.read_text() for p in sorted(LIBRARY.glob("*.py"))}


def load_tritonbench(shared_data: Path) -> list[dict]:
    return json.loads((shared_data / "tritonbench" / "TritonBench_G_v1.json").read_text())


# ---- planting -------------------------------------------------------------------------------------------------

def _insertion_lines(code: str) -> list[int]:
    """0-based line indices before which a top-level block may go (after the imports)."""
    tree = ast.parse(code)
    starts = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (isinstance(node, ast.Expr) and node is tree.body[0]):
            continue
        decos = getattr(node, "decorator_list", [])
        starts.append(min([node.lineno] + [d.lineno for d in decos]) - 1)
    return starts + [len(code.splitlines())]


def plant(code: str, kernels: list[str], rng: random.Random) -> str:
    """``code`` with each kernel source inserted at a random top-level position."""
    lines = code.splitlines()
    slots = _insertion_lines(code)
    inserts: dict[int, list[str]] = {}
    for k in kernels:
        inserts.setdefault(rng.choice(slots), []).append(k)
    out = []
    for i in range(len(lines) + 1):
        for k in inserts.get(i, []):
            out.extend(k.split("\n") + ["", ""])
        if i < len(lines):
            out.append(lines[i])
    return "\n".join(out) + "\n"


@dataclass
class PlantedCase:
    """A library corpus with benchmark items planted into it and the ground truth."""

    train: list[tuple[str, str]]                   # (library file name, code)
    planted: dict[str, tuple[str, str]]            # bench id -> (library file it went into, edit kind)
    absent: list[str]                              # bench ids planted nowhere and like no planted item
    look_alikes: dict[str, tuple[str, str]] = field(default_factory=dict)  # absent id -> (file, look-alike kind)
    ambiguous: list[str] = field(default_factory=list)  # unplanted but sharing code lines with a planted item


_WORD = re.compile(r"(?<![.\w])[A-Za-z_]\w*")


def _code_lines(src: str) -> set[str]:
    """The distinct non-trivial code lines of a kernel: comments dropped, spaces removed, every name that is not an
    attribute written ``N`` (so a copy with renamed variables keeps its lines; ``tl.exp`` stays ``N.exp``)."""
    out = set()
    for line in src.splitlines():
        line = re.sub(r"#.*", "", line).strip()
        if len(line) > 12 and not line.startswith(("@", "def ", '"""', "'''")):
            out.add(_WORD.sub("N", "".join(line.split())))
    return out


def _shares_code(a: list[str], b: list[str], share: float = 0.7) -> bool:
    """Whether a kernel of one side and one of the other share ``share`` of their code lines: of the shorter
    one's when it has at least :data:`_SUBSTANTIAL_LINES` lines (one kernel grown out of the other), else of the
    longer one's (a few generic lines, ``offs = pid * BLOCK + tl.arange(0, BLOCK)``, say nothing)."""
    for x in a:
        lx = _code_lines(x)
        for y in b:
            ly = _code_lines(y)
            small, large = sorted((len(lx), len(ly)))
            base = small if small >= _SUBSTANTIAL_LINES else large
            if base and len(lx & ly) / base >= share:
                return True
    return False


_SUBSTANTIAL_LINES = 12


def build_planted_case(bench: list[dict], seed: int, *, planted_share: float = 0.5,
                       look_alike_share: float = 0.5) -> PlantedCase:
    """Split the benchmark's repositories into planted and unplanted ones; plant each planted item's kernels,
    edited by a kind taken in turn from :data:`EDITS`, into one library file chosen at random. For a
    ``look_alike_share`` of the unplanted items, a look-alike of the item's longest kernel (kinds in turn from
    :data:`LOOK_ALIKES`, arguments renamed one time in two) goes into a random library file instead: the item
    stays absent.

    Unplanted items with a kernel that shares 70% of its code lines, names aside, with a planted item's kernel
    (TritonBench holds copies across items) are neither planted nor absent: they are in the corpus in all but
    name (``ambiguous``).
    """
    rng = random.Random(seed)
    items = sorted(bench, key=lambda r: r["file"])
    repos = sorted({r["repo"] for r in items})
    rng.shuffle(repos)
    chosen, total = set(), 0
    for repo in repos:
        if total >= planted_share * len(items):
            break
        chosen.add(repo)
        total += sum(r["repo"] == repo for r in items)
    libs = library_files()
    names = sorted(libs)
    to_plant: dict[str, list[str]] = {n: [] for n in names}
    planted, kernels_of = {}, {}
    order = [r for r in items if r["repo"] in chosen]
    rng.shuffle(order)
    for k, r in enumerate(order):
        srcs = [s for _, s in kernel_sources(r["output"])]
        kernels_of[r["file"]] = srcs
        kind = EDITS[k % len(EDITS)]
        target = rng.choice(names)
        functions = function_renames(srcs, rng)
        to_plant[target].extend(edit_kernel(s, kind, rng, functions) for s in srcs)
        planted[r["file"]] = (target, kind)
    planted_sources = [s for srcs in kernels_of.values() for s in srcs]
    absent, ambiguous, look_alikes = [], [], {}
    rest = [r for r in items if r["file"] not in planted]
    rng.shuffle(rest)
    for r in rest:
        mine = [s for _, s in kernel_sources(r["output"])]
        if _shares_code(mine, planted_sources):
            ambiguous.append(r["file"])
            continue
        absent.append(r["file"])
        if rng.random() >= look_alike_share:
            continue
        longest = max(mine, key=lambda s: len(s.splitlines()))
        for kind in rng.sample(LOOK_ALIKES, len(LOOK_ALIKES)):
            fake = look_alike(longest, kind, rng)
            if fake is not None:
                if rng.random() < 0.5:
                    fake = rename_args(fake, rng)
                target = rng.choice(names)
                to_plant[target].append(fake)
                look_alikes[r["file"]] = (target, kind)
                break
    train = [(n, plant(libs[n], to_plant[n], rng)) for n in names]
    return PlantedCase(train, planted, sorted(absent), look_alikes, sorted(ambiguous))


# ---- a synthetic corpus shaped like the PyPI one --------------------------------------------------------------

def synthetic_corpus(bench: list[dict], n_files: int = 1500, seed: int = 0, median_chars: int = 4700,
                     sigma: float = 1.13) -> list[tuple[str, str]]:
    """``n_files`` Triton files with log-normal lengths (median ``median_chars``; sigma 1.13 puts 10% over
    20,000 characters and a few over 100,000), each a header plus pieces drawn at random while a piece brings
    the file closer to its target length: whole benchmark items and library files (kernels with their wrappers)
    three times in ten, else single kernels of either. Every kernel is drawn from a pool holding it and one
    edited or look-alike variant of it, and four times in five one of its integer literals is changed on top, so
    that most kernels of the corpus differ from each other as the rows of a real corpus do."""
    rng = random.Random(seed)
    libs = list(library_files().values())
    wholes = [r["output"] for r in bench] + libs
    kernels = [s for code in wholes for _, s in kernel_sources(code)]
    pool = kernels + [_edited(k, rng) for k in kernels]
    header = "import torch\nimport triton\nimport triton.language as tl\n\n\n"
    out = []
    for i in range(n_files):
        target = int(median_chars * math.exp(rng.gauss(0.0, sigma)))
        parts, size = [header], len(header)
        while True:
            piece = rng.choice(wholes) if rng.random() < 0.3 else _literal_changed(rng.choice(pool), rng)
            if size + len(piece) - target > target - size:          # this piece would overshoot: try a kernel
                piece = _literal_changed(rng.choice(pool), rng)
                if size + len(piece) - target > target - size and len(parts) > 1:
                    break
            parts.append(piece + "\n\n\n")
            size += len(piece) + 3
        out.append((f"synthetic/{i:05d}.py", "".join(parts)))
    return out


def _edited(src: str, rng: random.Random) -> str:
    kind = rng.choice(EDITS[1:] + LOOK_ALIKES)
    try:
        edited = look_alike(src, kind, rng) if kind in LOOK_ALIKES else edit_kernel(src, kind, rng)
    except (SyntaxError, StopIteration, tokenize.TokenError, ValueError):
        edited = None
    return edited or src


_INT_LITERAL = re.compile(r"(?<![\w.])\d+(?![\w.])")


def _literal_changed(src: str, rng: random.Random) -> str:
    """``src`` with one integer literal of its body replaced, four times in five (a cheap way to make copies
    differ; the result need not compute anything sensible, it only has to parse)."""
    if rng.random() < 0.2:
        return src
    body_at = src.find("\ndef ")
    spots = [m for m in _INT_LITERAL.finditer(src) if m.start() > body_at]
    if not spots:
        return src
    m = rng.choice(spots)
    return src[:m.start()] + str(rng.randint(1, 64)) + src[m.end():]
