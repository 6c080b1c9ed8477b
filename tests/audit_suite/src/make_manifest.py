"""Writes manifest.json from mappings.py (the single source of case metadata)."""
import json, os, sys
from collections import Counter
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import mappings

rows = []
for f, e in mappings.PARA.items():
    rows.append(dict(file=f, split=f.split("/")[0], kind="paraphrase",
                     reference=dict(level=e["ref"][0], name=e["ref"][1]), category=e["category"], note=e["note"]))
for f, l in mappings.LOOK.items():
    e = mappings.PARA[l["para"]]
    rows.append(dict(file=f, split=f.split("/")[0], kind="lookalike",
                     reference=dict(level=e["ref"][0], name=e["ref"][1]), category=e["category"], note=l["note"],
                     skeleton=l["para"]))
rows.sort(key=lambda r: (r["split"] != "heldout", r["kind"], r["file"]))
json.dump(rows, open(os.path.join(ROOT, "manifest.json"), "w"), indent=1)
for split in ("heldout", "dev"):
    rs = [r for r in rows if r["split"] == split]
    print(split, Counter(r["kind"] for r in rs), "problems:", len({r["reference"]["name"] for r in rs}))
    print("  paraphrase categories:", dict(Counter(r["category"] for r in rs if r["kind"] == "paraphrase")))
h = {r["reference"]["name"] for r in rows if r["split"] == "heldout"}
d = {r["reference"]["name"] for r in rows if r["split"] == "dev"}
print("heldout/dev problem overlap:", h & d)
