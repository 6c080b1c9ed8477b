#!/usr/bin/env bash
# A separate venv for LLaMA-Factory 0.9.5 (tests/test_export_llamafactory.py runs tests/llamafactory_check.py in it):
# LLaMA-Factory's data pipeline loads kvdata's alpaca / sharegpt / standard-dpo exports through their
# dataset_info.json there. The main environment (transformers 5.24, datasets 5.x, trl 1.x) is never changed.
#
# LLaMA-Factory 0.9.5 checks its dependencies when `llamafactory.hparams` is imported (extras/misc.py,
# check_dependencies): transformers 4.55..5.6.0, datasets 2.16..4.0.0, accelerate 1.3..1.15, peft 0.18..0.20,
# trl 0.18..0.24. Its wheel pins the same or tighter (accelerate <= 1.11.0, peft <= 0.18.1) plus a UI / multimodal
# stack (gradio, fastapi, av, torchvision, torchaudio, modelscope, ...) its data pipeline never imports. So the
# package goes in with --no-deps, and beside it only what that pipeline imports, inside both ranges: transformers
# 5.6.0 and datasets 4.0.0 (the newest each allows), peft, trl (llamafactory.model, whose load_tokenizer
# tests/llamafactory_check.py calls, imports trl's value-head model, gone from trl 1.x), accelerate and omegaconf;
# pip brings their own dependencies (an older huggingface-hub, tokenizers, fsspec, dill, multiprocess) into the venv
# only. DISABLE_VERSION_CHECK stays off: the check runs LLaMA-Factory as a user who installed it would. (With the
# check off, the data pipeline alone also runs on the main environment's transformers 5.24 and datasets 5.2, but
# llamafactory.model does not import there.)
#
# torchaudio: LLaMA-Factory imports it at the top of data/mm_plugin.py and calls it only to read audio inputs
# (torchaudio.load, torchaudio.functional.resample). PyPI's torchaudio wheel needs CUDA, so the venv gets a stub
# package whose functions raise if called. (transformers' is_torchaudio_available() sees it, by find_spec; only
# transformers' audio feature extractors use torchaudio, and nothing here loads one.)
#
# The venv sees the main environment's packages (--system-site-packages: torch, numpy, pyarrow, pandas, jinja2 are
# not installed twice); ci/constraints-cpu.txt and the main environment's numpy / pyarrow / pandas versions keep pip
# from swapping them. Idempotent: a venv whose stamp is newer than this script is left as it is.
#
#   KVDATA_LLAMAFACTORY_VENV   where the venv goes (default ~/.cache/kvdata/venv-llamafactory: outside the work
#                              tree, so that nothing of it can be committed)
#   PYTHON                     the interpreter the venv is made from (default python3: the main environment's)
set -euo pipefail
cd "$(dirname "$0")/.."
unset DISABLE_VERSION_CHECK   # the import check below is LLaMA-Factory's own version check too
PY=${PYTHON:-python3}
VENV=${KVDATA_LLAMAFACTORY_VENV:-${HOME}/.cache/kvdata/venv-llamafactory}
STAMP="$VENV/.kvdata-llamafactory-stamp"
CHECK='import llamafactory.data, llamafactory.hparams, llamafactory.model; print(llamafactory.__version__)'

# Up to date: stamped after this script changed, and LLaMA-Factory (with its version check) imports.
if [ -f "$STAMP" ] && [ "$STAMP" -nt scripts/install_llamafactory.sh ] \
   && [ "$(cd / && "$VENV/bin/python" -c "$CHECK" 2>/dev/null | tail -n 1)" = "0.9.5" ]; then
  echo "[install-llamafactory] ok: $VENV (already installed)"
  exit 0
fi
echo "[install-llamafactory] venv at $VENV"
mkdir -p "$(dirname "$VENV")"
$PY -m venv --clear --system-site-packages "$VENV"
constraints="$VENV/constraints.txt"
cp ci/constraints-cpu.txt "$constraints"
$PY - >>"$constraints" <<'EOF'
from importlib.metadata import PackageNotFoundError, version
for name in ("numpy", "pyarrow", "pandas"):
    try:
        print(f"{name}=={version(name)}")
    except PackageNotFoundError:
        pass
EOF
pip=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
"${pip[@]}" -c "$constraints" \
  "transformers>=4.55.0,<=5.6.0,!=4.57.0" "datasets>=2.16.0,<=4.0.0" "accelerate>=1.3.0,<=1.11.0" \
  "peft>=0.18.0,<=0.18.1" "trl>=0.18.0,<=0.24.0" "omegaconf"
"${pip[@]}" --no-deps "llamafactory==0.9.5"

# the torchaudio stub (see the header)
site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir -p "$site/torchaudio"
cat >"$site/torchaudio/__init__.py" <<'EOF'
"""A stub of torchaudio written by kvdata's scripts/install_llamafactory.sh: LLaMA-Factory 0.9.5 imports torchaudio
at the top of llamafactory/data/mm_plugin.py and calls it only for audio inputs, which kvdata's exports never have;
PyPI's torchaudio wheel needs CUDA. Anything called here raises."""
from . import functional  # noqa: F401


def load(*args, **kwargs):
    raise RuntimeError("torchaudio is a stub in this venv (scripts/install_llamafactory.sh): no audio support")
EOF
cat >"$site/torchaudio/functional.py" <<'EOF'
"""See torchaudio/__init__.py: a stub."""


def resample(*args, **kwargs):
    raise RuntimeError("torchaudio is a stub in this venv (scripts/install_llamafactory.sh): no audio support")
EOF

version=$(cd / && "$VENV/bin/python" -c "$CHECK" | tail -n 1)
"$VENV/bin/python" - "$version" <<'EOF'
import sys
from importlib.metadata import version
print(f"[install-llamafactory] ok: llamafactory {sys.argv[1]}",
      *(f"{name} {version(name)}" for name in ("transformers", "datasets", "accelerate", "peft", "trl")))
EOF
touch "$STAMP"
