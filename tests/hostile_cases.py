"""Every hostile suite in tests/ as (kernel, reference) cases, each labelled hostile or honest the way its own test
labels it, for the tests that run them through something other than ``reverify`` (tests/test_reward_hostile.py
turns each into a model completion).

- tests/hostile/: every trick (tests/test_reverify_hostile.py); ``_honest`` is the one control.
- tests/knockout_suite/: controls are the cases tests/test_reverify_knockout.py expects ``correct``; ``# gpu-only``
  cases are left out, as there.
- tests/reverify_suite4/: the same, less the hacks its test lists as not caught yet (the verifier's open gaps).
- tests/reverify_suite3/, tests/reverify_redteam/: ``kind`` in their manifest.json; ``gpu_only`` entries, the
  timing-only tricks (right answers, cheated clocks: the interpreter does not time) and the all-zero references
  (``inconclusive``: nothing can tell) are left out, as in their tests, whose lists are imported here.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))


@dataclass(frozen=True)
class Case:
    suite: str
    name: str
    honest: bool
    kernel: str
    reference: str


def hostile_dir_cases(token_file: str, outside: str) -> list[Case]:
    root = TESTS / "hostile"
    reference = (root / "reference.py").read_text()
    out = []
    for path in sorted(root.glob("*.py")):
        if path.name == "reference.py":
            continue
        code = path.read_text().replace("__TOKEN_FILE__", token_file).replace("__OUTSIDE__", outside)
        out.append(Case("hostile", path.stem, path.stem == "_honest", code, reference))
    return out


def knockout_cases() -> list[Case]:
    from test_reverify_knockout import EXPECTED

    root = TESTS / "knockout_suite"
    common = (root / "kernels" / "_common.py").read_text()
    out = []
    for path in sorted((root / "kernels").glob("*.py")):
        text = path.read_text()
        if path.name.startswith("_") or "# gpu-only" in text:
            continue
        reference = re.match(r"# reference: (\w+)", text).group(1)
        out.append(Case("knockout_suite", path.stem, EXPECTED[path.stem][0] == {"correct"}, common + "\n\n" + text,
                        (root / "references" / f"{reference}.py").read_text()))
    return out


def manifest_cases(suite: str) -> list[Case]:
    """suite: ``reverify_suite3``, ``reverify_redteam`` or ``reverify_suite4``. From suite4 the hacks the verifier
    does not catch yet (its test's ``NOT_CAUGHT``, strict xfails there) are left out: the reward inherits them."""
    if suite == "reverify_suite3":
        from test_reverify_suite3 import TIMING_ONLY
        left_out = set(TIMING_ONLY)
    elif suite == "reverify_suite4":
        from test_reverify_suite4 import NOT_CAUGHT
        left_out = set(NOT_CAUGHT)
    else:
        from test_reverify_redteam import INCONCLUSIVE, TIMING_ONLY
        left_out = set(TIMING_ONLY) | set(INCONCLUSIVE)
    root = TESTS / suite
    out = []
    for e in json.loads((root / "manifest.json").read_text()):
        if e["gpu_only"] or e["case"] in left_out:
            continue
        out.append(Case(suite, e["case"], e["kind"] != "hostile", (root / e["case"] / "kernel.py").read_text(),
                        (root / e["case"] / "reference.py").read_text()))
    return out
