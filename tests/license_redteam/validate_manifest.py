"""Consistency check of the red-team fixtures (stdlib only; not a pytest module).

    python tests/license_redteam/validate_manifest.py

Checks that every file named in manifest.json exists, that every source file
(.h .hpp .cpp .py .rst) in a tree is named in the manifest, and that
allow_cases.json has the expected keys.
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
SRC_EXT = {".h", ".hpp", ".cpp", ".py", ".rst"}


def main() -> int:
    errors = []
    manifest = json.loads((HERE / "manifest.json").read_text())
    seen = set()
    for entry in manifest:
        tree = HERE / "trees" / entry["tree"]
        seen.add(entry["tree"])
        if not tree.is_dir():
            errors.append(f"missing tree {tree}")
            continue
        if entry["tree_license_known"] != (entry["tree_license"] is not None):
            errors.append(f"{entry['tree']}: tree_license_known inconsistent")
        for rel, exp in entry["files"].items():
            if not (tree / rel).is_file():
                errors.append(f"{entry['tree']}: listed file missing: {rel}")
            if exp["license_source"] not in ("file", "tree", None):
                errors.append(f"{entry['tree']}/{rel}: bad license_source")
        on_disk = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.suffix in SRC_EXT}
        for rel in sorted(on_disk - set(entry["files"])):
            errors.append(f"{entry['tree']}: source file not in manifest: {rel}")
    for d in (HERE / "trees").iterdir():
        if d.is_dir() and d.name not in seen:
            errors.append(f"tree folder not in manifest: {d.name}")
    for i, case in enumerate(json.loads((HERE / "allow_cases.json").read_text())):
        if set(case) - {"note"} != {"expression", "allow", "allowed", "relied_on"}:
            errors.append(f"allow case {i}: bad keys {sorted(case)}")
        if not case["allowed"] and case["relied_on"] is not None:
            errors.append(f"allow case {i}: rejected but relied_on set")
    for e in errors:
        print("ERROR", e)
    print(f"{len(manifest)} trees, {sum(len(e['files']) for e in manifest)} files checked;",
          "OK" if not errors else f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
