"""Window encoders: a batch of token windows in, one L2-normalised vector per window out.

Two backends run the same sentence-transformers model:

- ``torch``: the model's own modules (``SentenceTransformer.forward`` on a features dict: transformer, then the
  model's Pooling and Normalize modules as its config sets them), in fp32, fp16 or bf16. fp16 is the default on
  a GPU.
- ``onnx``: ONNX Runtime on the CPU, int8 with dynamic quantisation: the default on a machine without a GPU.
  The transformer is exported to ONNX once per model and machine type (``torch.onnx.export``), its attention,
  GELU and layer-norm subgraphs fused by ONNX Runtime's transformer optimizer, and the weights of its matrix
  products quantised by ``onnxruntime.quantization.quantize_dynamic`` with the per-instruction-set settings of
  Optimum's ``AutoQuantizationConfig`` (arm64, avx2, avx512, avx512_vnni: weight type, per-channel, symmetric).
  The fused attention (its QKV projection and softmax) stays fp32: quantising it as well, as Optimum's default
  operator list does, took one KernelBench item to cosine 0.988 against fp32 for a few per cent of speed.
  The model's own Pooling and Normalize modules then run on ONNX Runtime's token embeddings, so pooling is the
  model's, not a copy of it.
  The result is cached under ``$KVDATA_CACHE/embedding-models/`` (default ``~/.cache/kvdata``); nothing is
  downloaded. sentence-transformers' own ``backend="onnx"`` and ``export_dynamic_quantized_onnx_model`` go
  through ``optimum-onnx``, whose releases require transformers < 4.58 while sentence-transformers 6 requires
  transformers >= 5, so both cannot be installed together; the steps above are the ones that helper runs
  (Optimum's ``ORTQuantizer`` drives the same ONNX Runtime quantizer).

When onnxruntime or onnx is missing, or the export fails, the ONNX backend falls back to torch fp32 and says why
in ``note`` (and the log): an audit never fails for want of the fast path.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import platform
import shutil
import tempfile
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from kvdata.audit.embedding_windows import WindowBatch

logger = logging.getLogger(__name__)

__all__ = ["WindowEncoder", "BACKENDS", "PRECISIONS", "choose_backend", "load_encoder", "onnx_int8_model",
           "quantization_preset", "default_cache_root", "load_sentence_transformer", "onnx_threads"]

BACKENDS = ("auto", "torch", "onnx")
PRECISIONS = ("auto", "fp32", "fp16", "bf16", "int8")
# Optimum's AutoQuantizationConfig presets for dynamic quantisation: weight type, per-channel weights.
_PRESETS = {"arm64": ("QInt8", True), "avx2": ("QUInt8", True), "avx512": ("QInt8", True),
            "avx512_vnni": ("QInt8", True)}
# Operators quantised (attention and embeddings stay fp32); the name enters the file name and the cache key.
_QUANTIZED_OPS, _QUANTIZED_OPS_NAME = ("MatMul",), "matmul"
_BERT_LIKE = {"bert", "roberta", "xlm-roberta", "distilbert", "electra", "camembert", "mpnet"}


def default_cache_root() -> Path:
    return Path(os.environ.get("KVDATA_CACHE", Path.home() / ".cache" / "kvdata"))


def choose_backend(backend: str, precision: str, device: str) -> tuple[str, str]:
    """The (backend, precision) that ``auto`` means on ``device``; explicit choices are checked and kept."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    gpu = not device.startswith("cpu")
    if backend == "auto":
        backend = "onnx" if (not gpu and precision in ("auto", "int8")) else "torch"
    if backend == "onnx":
        if gpu:
            raise ValueError("the onnx backend runs on the CPU; use backend='torch' on a GPU")
        if precision not in ("auto", "int8"):
            raise ValueError("the onnx backend is int8; fp32 is backend='torch', precision='fp32'")
        return "onnx", "int8"
    if precision == "int8":
        raise ValueError("int8 is the onnx backend (CPU); the torch backend runs fp32, fp16 or bf16")
    if precision == "auto":
        precision = "fp16" if gpu else "fp32"
    return "torch", precision


# ---------------------------------------------------------------------------------------------- the encoders
@dataclass
class WindowEncoder:
    """Runs batches of windows through one model; ``key`` names backend and precision in the cache key."""

    st: object                      # the SentenceTransformer (its tokenizer, pooling and normalisation)
    backend: str
    precision: str
    device: str
    key: str
    note: Optional[str] = None      # why the requested backend was replaced, if it was
    session: object = None          # the ONNX Runtime session (onnx backend)
    onnx_path: Optional[Path] = None
    threads: int = 1                # ONNX Runtime calls in flight at once (one intra-op thread each)
    _pool: Optional[ThreadPoolExecutor] = field(default=None, repr=False)

    @property
    def tokenizer(self):
        return self.st.tokenizer

    @property
    def max_seq_length(self) -> int:
        return int(self.st.max_seq_length or 256)

    def dimension(self) -> int:
        get = getattr(self.st, "get_embedding_dimension", None) or self.st.get_sentence_embedding_dimension
        return int(get())

    def encode(self, batch: WindowBatch):
        """(windows, dim) float32 torch tensor on the encoder's device, rows L2-normalised."""
        import torch
        import torch.nn.functional as F
        with torch.inference_mode():
            if self.session is None:
                dev = torch.device(self.device)
                feats = {k: _to_device(v, dev) for k, v in batch.features().items()}
                out = self.st.forward(feats)["sentence_embedding"]
            else:
                feats = {"token_embeddings": torch.from_numpy(self._onnx_tokens(batch)),
                         "attention_mask": torch.from_numpy(batch.attention_mask)}
                for module in list(self.st)[1:]:  # the model's own pooling and normalisation
                    feats = module(feats)
                out = feats["sentence_embedding"]
            return F.normalize(out.float(), dim=1)

    def _onnx_tokens(self, batch: WindowBatch) -> np.ndarray:
        """Token embeddings (windows, length, dim), zero past each window's end.

        One window per ONNX Runtime call, unpadded, the calls spread over threads: dynamic quantisation scales
        each call's activations by that call's range, so a window's vector must not depend on its batch mates.
        """
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="kvdata-onnx")
        names = [i.name for i in self.session.get_inputs()]
        feats = batch.features()
        lengths = batch.attention_mask.sum(axis=1)

        def one(i: int) -> np.ndarray:
            n = int(lengths[i])
            return self.session.run(None, {k: feats[k][i:i + 1, :n] for k in names})[0][0]

        out = None
        for i, tokens in enumerate(self._pool.map(one, range(len(lengths)))):
            if out is None:
                out = np.zeros(batch.input_ids.shape + (tokens.shape[-1],), dtype=np.float32)
            out[i, :len(tokens)] = tokens
        return out


def _to_device(array: np.ndarray, device):
    import torch
    t = torch.from_numpy(array)
    if device.type == "cuda":
        return t.pin_memory().to(device, non_blocking=True)
    return t


_ENCODERS: dict[tuple, WindowEncoder] = {}
_ENCODERS_LOCK = threading.Lock()


def load_encoder(location: str, identity: str, device: str, backend: str = "auto",
                 precision: str = "auto") -> WindowEncoder:
    """The encoder for (model, device, backend, precision), loaded once per process."""
    backend, precision = choose_backend(backend, precision, device)
    with _ENCODERS_LOCK:
        key = (location, device, backend, precision)
        if key not in _ENCODERS:
            _ENCODERS[key] = _build_encoder(location, identity, device, backend, precision)
        return _ENCODERS[key]


def _build_encoder(location, identity, device, backend, precision) -> WindowEncoder:
    import torch
    if backend == "onnx":
        try:
            st = load_sentence_transformer(location, "cpu")
            path = onnx_int8_model(st, identity)
            preset = path.stem.split("-")[-1]
            return WindowEncoder(st=st, backend="onnx", precision="int8", device="cpu",
                                 key=f"onnx-int8-{_QUANTIZED_OPS_NAME}-{preset}",
                                 session=_onnx_session(path), onnx_path=path, threads=onnx_threads())
        except Exception as exc:  # missing extras or a failed export: the audit goes on in fp32
            note = (f"ONNX int8 embedding unavailable ({type(exc).__name__}: {exc}); "
                    "using torch fp32 on the CPU instead")
            logger.warning(note)
            enc = _build_encoder(location, identity, device, "torch", "fp32")
            enc.note = note
            return enc
    st = load_sentence_transformer(location, device)
    # Always cast: transformers 5 keeps a checkpoint's own dtype, so fp16 weights would otherwise stay fp16.
    st = st.to(dtype={"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[precision])
    return WindowEncoder(st=st, backend="torch", precision=precision, device=str(st.device),
                         key=f"torch-{precision}")


def load_sentence_transformer(location: str, device: str):
    """A fresh SentenceTransformer in eval mode; a local directory loads with the Hub offline. A Hub id loads from
    the local cache when it is there, and otherwise only after the Hub answers (one line in seconds when it cannot:
    ``kvdata.hub.require_hub``), never after minutes of retries."""
    local = Path(location).is_dir()
    if local:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no network at run time: never a Hub lookup
    from sentence_transformers import SentenceTransformer
    logger.info("loading embedding model %s on %s", location, device)
    if local:
        return SentenceTransformer(location, device=device, local_files_only=True).eval()
    try:
        return SentenceTransformer(location, device=device, local_files_only=True).eval()
    except Exception:  # noqa: BLE001 - not in the local cache (each library says so its own way)
        from kvdata.hub import require_hub

        require_hub(f"--model {location}: not a local folder nor in the local cache, and",
                    "give a local model folder (the bundled MiniLM is the default)")
    return SentenceTransformer(location, device=device).eval()


# ---------------------------------------------------------------------------------------------- ONNX int8
def quantization_preset() -> str:
    """The Optimum dynamic-quantisation preset for this CPU: arm64, avx512_vnni, avx512 or avx2."""
    if platform.machine().lower() in ("arm64", "aarch64"):
        return "arm64"
    flags: set[str] = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    if "avx512_vnni" in flags or "avx512vnni" in flags:
        return "avx512_vnni"
    if "avx512f" in flags:
        return "avx512"
    return "avx2"


def onnx_int8_model(st, identity: str, cache_root: Optional[Path] = None) -> Path:
    """The int8 ONNX file of ``st``'s transformer for this CPU, built on first use and cached by model identity."""
    import onnxruntime

    preset = quantization_preset()
    folder = (cache_root or default_cache_root()) / "embedding-models" / identity.replace(":", "-")
    target = folder / f"model-int8-{_QUANTIZED_OPS_NAME}-{preset}.onnx"
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    auto_model = st[0].auto_model
    config = auto_model.config
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids")
             if n in (getattr(st.tokenizer, "model_input_names", None) or ["input_ids", "attention_mask"])]
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        fp32 = Path(tmp) / "model.onnx"
        _export(auto_model, names, fp32)
        source = fp32
        if getattr(config, "model_type", "") in _BERT_LIKE:
            source = _fuse(fp32, config, Path(tmp) / "fused.onnx")
        _quantize(source, Path(tmp) / target.name, preset)
        meta = {"identity": identity, "preset": preset, "inputs": names, "fused": source != fp32,
                "quantized_ops": list(_QUANTIZED_OPS),
                "onnxruntime": onnxruntime.__version__, "torch": _version("torch")}
        (Path(tmp) / "meta.json").write_text(json.dumps(meta, indent=1))
        os.replace(Path(tmp) / target.name, target)  # atomic: a concurrent builder finds a whole file or none
        shutil.copyfile(Path(tmp) / "meta.json", folder / f"{target.stem}.json")
    logger.info("built %s", target)
    return target


def _export(auto_model, names: list[str], path: Path) -> None:
    """The transformer's last hidden state as a function of ``names``, batch and sequence dynamic."""
    import copy

    import torch

    class _Transformer(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, *inputs):
            return self.model(**dict(zip(names, inputs))).last_hidden_state

    model = copy.deepcopy(auto_model).float().cpu().eval()
    with contextlib.suppress(Exception):  # the attention ONNX Runtime's optimizer can fuse
        model.set_attn_implementation("eager")
    example = tuple(torch.ones((2, 16), dtype=torch.long) for _ in names)
    axes = {n: {0: "batch", 1: "sequence"} for n in names + ["token_embeddings"]}
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Transformer(model), example, str(path), input_names=names,
                          output_names=["token_embeddings"], dynamic_axes=axes, opset_version=17, dynamo=False)


def _fuse(source: Path, config, path: Path) -> Path:
    """ONNX Runtime's transformer optimizer: attention, GELU and skip-layer-norm fused (for BERT-like encoders)."""
    from onnxruntime.transformers.optimizer import optimize_model
    try:
        fused = optimize_model(str(source), model_type="bert", num_heads=int(config.num_attention_heads),
                               hidden_size=int(config.hidden_size))
        fused.save_model_to_file(str(path))
        return path
    except Exception as exc:  # an unfused graph still quantises and runs
        logger.warning("ONNX Runtime optimizer failed (%s); quantising the unfused graph", exc)
        return source


def _quantize(source: Path, path: Path, preset: str) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    weight_type, per_channel = _PRESETS[preset]
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer's "consider pre-processing" advice, printed on every call
    try:
        quantize_dynamic(str(source), str(path), per_channel=per_channel, weight_type=getattr(QuantType, weight_type),
                         op_types_to_quantize=list(_QUANTIZED_OPS),
                         extra_options={"WeightSymmetric": True, "ActivationSymmetric": False,
                                        "DefaultTensorType": onnx.TensorProto.FLOAT})
    finally:
        root.setLevel(level)


def onnx_threads() -> int:
    """ONNX Runtime calls run at once: ``KVDATA_ONNX_THREADS``, else the CPUs this process may use."""
    if os.environ.get("KVDATA_ONNX_THREADS"):
        return max(1, int(os.environ["KVDATA_ONNX_THREADS"]))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _onnx_session(path: Path):
    """One session, one intra-op thread: parallelism comes from running windows side by side (thread-safe)."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(name)
    except PackageNotFoundError:
        return "absent"
