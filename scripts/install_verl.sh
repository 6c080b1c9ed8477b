#!/usr/bin/env bash
# A separate venv for veRL (tests/test_reward_verl.py runs its check script in it): veRL 0.9.1 needs
# transformers < 5.11, the main environment has transformers 5.24, and the main environment is never changed.
#
# The venv sees the main environment's packages (--system-site-packages: torch, triton, ray, datasets, pyarrow are
# not installed twice) and installs into itself only what veRL adds or needs older: verl 0.9.1, transformers < 5.11
# and veRL's small pure-Python dependencies. ci/constraints-cpu.txt keeps torch and triton at the main environment's
# versions, so pip never swaps in another torch. kvdata is installed editable with --no-deps (its dependencies are
# the main environment's). Idempotent: a venv whose stamp is newer than this script is left as it is.
#
#   KVDATA_VERL_VENV   where the venv goes (default ~/.cache/kvdata/venv-verl: outside the work tree, so that
#                      nothing of it can be committed)
#   PYTHON             the interpreter the venv is made from (default python3: the main environment's)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${KVDATA_VERL_VENV:-${HOME}/.cache/kvdata/venv-verl}
STAMP="$VENV/.kvdata-verl-stamp"

# Up to date: stamped after this script changed, and its kvdata is this checkout (a clone elsewhere reinstalls).
here=$(pwd -P)
if [ -f "$STAMP" ] && [ "$STAMP" -nt scripts/install_verl.sh ] \
   && [ "$(cd / && "$VENV/bin/python" -c "import verl, kvdata.reward, os; print(os.path.dirname(os.path.dirname(os.path.realpath(kvdata.__file__))))" 2>/dev/null)" = "$here" ]; then
  echo "[install-verl] ok: $VENV (already installed)"
  exit 0
fi
echo "[install-verl] venv at $VENV"
mkdir -p "$(dirname "$VENV")"
$PY -m venv --system-site-packages "$VENV"
# Pin what the main environment already has that pip must not replace (torch/triton via the CI constraints; numpy,
# pyarrow, ray and pandas at their installed versions). transformers < 5.11 brings its own huggingface-hub < 2 and
# tokenizers <= 0.23.0 (and pip picks a datasets that accepts that hub) into the venv only.
constraints="$VENV/constraints.txt"
cp ci/constraints-cpu.txt "$constraints"
$PY - >>"$constraints" <<'EOF'
from importlib.metadata import PackageNotFoundError, version
for name in ("numpy", "pyarrow", "ray", "pandas"):
    try:
        print(f"{name}=={version(name)}")
    except PackageNotFoundError:
        pass
EOF
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -c "$constraints" \
  "verl==0.9.1" "transformers>=5.5.3,<5.11"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
"$VENV/bin/python" -c "import verl, transformers, kvdata.reward; print('[install-verl] ok: verl', verl.__version__, 'transformers', transformers.__version__)"
touch "$STAMP"
