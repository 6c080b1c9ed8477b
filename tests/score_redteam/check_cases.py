"""Run every case in manifest.json against `kvdata score` and check exit status and error substrings.
ok cases: checks that stdout is strict JSON (no NaN/Infinity) and prints it next to the expected checks for a reader
(metric names are not the scorer's schema, so numeric checks are not matched automatically).
Usage: python tests/score_redteam/check_cases.py [case ...]   (runs the scorer; does not read its code)"""
import json, os, subprocess, sys, tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CMD = [sys.executable, "-c", "import sys; from kvdata.cli import main; sys.argv[0] = 'kvdata'; main()", "score"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def strict(s):
    def bad(x):
        raise ValueError(f"non-standard JSON constant {x}")
    return json.loads(s, parse_constant=bad)


fails = 0
for e in json.loads((HERE / "manifest.json").read_text()):
    if len(sys.argv) > 1 and e["case"] not in sys.argv[1:]:
        continue
    with tempfile.TemporaryDirectory() as out:
        args = [a.replace("{OUT}", out) for a in e["args"]]
        p = subprocess.run([*CMD, *args], cwd=HERE / "cases" / e["case"], env=ENV,
                           capture_output=True, text=True, timeout=600)
    msg = p.stdout + p.stderr
    problems = []
    alt = e.get("also_acceptable") or {}
    got = "ok" if p.returncode == 0 else "error"
    if got != e["expect"] and got != alt.get("expect"):
        problems.append(f"expected {e['expect']}, got {got} (rc={p.returncode})")
    elif got == "error":
        want = e.get("error_contains", []) if got == e["expect"] else alt.get("error_contains", [])
        problems += [f"message lacks {w!r}" for w in want if w not in msg]
        anyof = (e if got == e["expect"] else alt).get("error_contains_any")
        if anyof and not any(w in msg for w in anyof):
            problems.append(f"message has none of {anyof!r}")
    else:
        try:
            strict(p.stdout)
        except Exception as ex:
            problems.append(f"--json output not strict JSON: {ex}")
    fails += bool(problems)
    print(("FAIL " if problems else "pass ") + e["case"] + ("" if not problems else ": " + "; ".join(problems)))
    if problems or got == "ok":
        print("   message/output:", msg.strip()[:1500].replace("\n", "\n   "))
        for c in e.get("checks", []) if got == e["expect"] else alt.get("checks", []):
            print("   expect:", c["text"], "=", c.get("value", ""))
print(f"{fails} failing")
sys.exit(1 if fails else 0)
