"""Builds look-alike cases from paraphrase skeletons by small textual edits.
Each edit must match exactly once (or `n` times) in the source file."""
import os, sys
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def R(old, new, n=1):
    return (old, new, n)

SPECS = {}
def spec(split, src, dst, *edits):
    SPECS[(split, dst)] = (src, edits)

exec(open(os.path.join(ROOT, "src", "lookalike_specs.py")).read())

def main():
    for (split, dst), (src, edits) in SPECS.items():
        text = open(os.path.join(ROOT, split, src)).read()
        for old, new, n in edits:
            c = text.count(old)
            if c != n:
                sys.exit(f"{dst}: expected {n} occurrence(s) of {old!r}, found {c}")
            text = text.replace(old, new)
        open(os.path.join(ROOT, split, dst), "w").write(text)
        print("wrote", split, dst)

if __name__ == "__main__":
    main()
