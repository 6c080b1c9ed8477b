"""Documents to model-sized token windows, packed into length-sorted batches: the input side of the embedder.

Each document is tokenised **once**, by the model's own fast tokenizer, and the windows are cut from its token
ids directly; the model's special tokens (``[CLS]`` / ``[SEP]`` for BERT) are added here. Nothing is detokenised
and re-tokenised, so the cost of tokenising is paid once per document.

Windows cover the whole document: windows of ``window_tokens`` tokens at a stride of ``window_tokens -
overlap_tokens``, the last one moved back to end at the last token, so every token lies in a window and no
statement is cut blind. Only past ``max_windows`` (documents of tens of thousands of tokens) are the windows
sampled evenly, the first and the last always kept. (The layout is the one the text-window path used before, so
document vectors stay comparable with it.)

Windows of one group of documents are sorted by length and packed into batches of about ``batch_tokens``
(padded) tokens, so a batch is one model call with almost no padding.
"""
from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

__all__ = ["Chunking", "WindowBatch", "WindowGroup", "WindowCutter", "window_spans"]


@dataclass(frozen=True)
class Chunking:
    """How a document is split into model-sized windows. Part of the embedding cache key."""

    window_tokens: int = 0          # 0: the model's max_seq_length minus its special tokens
    overlap_tokens: int = 32        # consecutive windows share at least this many tokens
    max_windows: int = 256          # past this (~57k tokens at 254 a window), windows are sampled evenly

    def resolved(self, max_seq_length: int, special_tokens: int = 2) -> "Chunking":
        """This chunking with ``window_tokens`` filled in from the model's sequence limit."""
        if self.window_tokens:
            return self
        return Chunking(max(16, int(max_seq_length) - special_tokens), self.overlap_tokens, self.max_windows)

    def key(self) -> str:
        return f"w{self.window_tokens}-o{self.overlap_tokens}-m{self.max_windows}-meanpool"


def window_spans(n_tokens: int, chunking: Chunking) -> tuple[np.ndarray, int]:
    """Window start offsets of a document of ``n_tokens`` tokens, and the windows' common length.

    Up to ``max_windows`` windows, every token lies in at least one window.
    """
    window, overlap = chunking.window_tokens, min(chunking.overlap_tokens, chunking.window_tokens - 1)
    if n_tokens <= window:
        return np.zeros(1, dtype=np.int64), n_tokens
    step = window - overlap
    starts = np.arange(0, n_tokens - window + step, step, dtype=np.int64)
    starts[-1] = min(int(starts[-1]), n_tokens - window)  # the last window ends at the last token
    if len(starts) > chunking.max_windows:
        picks = np.unique(np.linspace(0, len(starts) - 1, chunking.max_windows).round().astype(np.int64))
        starts = starts[picks]
    return starts, window


@dataclass
class WindowBatch:
    """One model call: ``len(doc_index)`` windows, padded to one length."""

    input_ids: np.ndarray           # (windows, length) int64, special tokens included
    attention_mask: np.ndarray      # (windows, length) int64
    doc_index: np.ndarray           # (windows,) int64: the window's document, within its group
    weight: np.ndarray              # (windows,) float32: the window's document tokens (its weight in the mean)
    token_type_ids: Optional[np.ndarray] = None

    @property
    def n_tokens(self) -> int:
        return int(self.input_ids.size)

    def features(self) -> dict[str, np.ndarray]:
        """The model inputs by name, as a tokenizer would have returned them."""
        out = {"input_ids": self.input_ids, "attention_mask": self.attention_mask}
        if self.token_type_ids is not None:
            out["token_type_ids"] = self.token_type_ids
        return out


@dataclass
class WindowGroup:
    """A run of consecutive documents, tokenised, cut into windows and batched."""

    n_docs: int
    batches: list[WindowBatch]
    n_windows: int
    n_doc_tokens: int               # document tokens before windowing (no overlap, no special tokens)


class WindowCutter:
    """Tokenises documents with a model's tokenizer and cuts them into :class:`WindowBatch` es."""

    def __init__(self, tokenizer, chunking: Chunking, batch_tokens: int, max_batch_windows: Optional[int] = None,
                 max_seq_length: Optional[int] = None):
        """``tokenizer``: the model's Hugging Face tokenizer. ``chunking`` with ``window_tokens`` 0 is resolved
        against ``max_seq_length`` and the tokenizer's special tokens (``self.chunking`` is the resolved one).

        ``batch_tokens``: padded tokens per batch; ``max_batch_windows`` caps windows per batch.
        """
        self._hf = tokenizer
        self._fast = _plain_fast_tokenizer(tokenizer)
        self.prefix, self.suffix = self._special_frame()
        if chunking.window_tokens <= 0:
            if not max_seq_length:
                raise ValueError("an unresolved chunking (window_tokens=0) needs max_seq_length")
            chunking = chunking.resolved(max_seq_length, len(self.prefix) + len(self.suffix))
        self.chunking = chunking
        self.batch_tokens = max(1, int(batch_tokens))
        self.max_batch_windows = max_batch_windows
        self.pad_id = getattr(tokenizer, "pad_token_id", None) or 0
        names = getattr(tokenizer, "model_input_names", None) or ["input_ids", "attention_mask"]
        self.with_token_types = "token_type_ids" in names

    # ---------------------------------------------------------------------------------------- tokenising
    def token_ids(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text's token ids, without special tokens, untruncated."""
        if self._fast is not None:
            if hasattr(self._fast, "encode_batch_fast"):  # tokenizers >= 0.20: no character offsets computed
                encodings = self._fast.encode_batch_fast(list(texts), add_special_tokens=False)
            else:
                encodings = self._fast.encode_batch(list(texts), add_special_tokens=False)
            return [np.asarray(e.ids, dtype=np.int64) for e in encodings]
        with _quiet("transformers.tokenization_utils_base"):  # "longer than max length": we know, we cut
            ids = self._hf(list(texts), add_special_tokens=False, truncation=False, verbose=False,
                           return_attention_mask=False, return_token_type_ids=False)["input_ids"]
        return [np.asarray(i, dtype=np.int64) for i in ids]

    def _special_frame(self) -> tuple[np.ndarray, np.ndarray]:
        """The special tokens the model puts before and after a text (``[CLS]`` and ``[SEP]`` for BERT)."""
        probe = "x"
        if self._fast is not None:
            bare = self._fast.encode(probe, add_special_tokens=False).ids
            full = self._fast.encode(probe, add_special_tokens=True).ids
        else:
            bare = self._hf(probe, add_special_tokens=False)["input_ids"]
            full = self._hf(probe, add_special_tokens=True)["input_ids"]
        for i in range(len(full) - len(bare) + 1):
            if full[i:i + len(bare)] == bare:
                return np.asarray(full[:i], np.int64), np.asarray(full[i + len(bare):], np.int64)
        raise ValueError("cannot locate the text between the tokenizer's special tokens")

    # ---------------------------------------------------------------------------------------- cutting
    def cut(self, texts: Sequence[str]) -> WindowGroup:
        """Tokenise ``texts`` and cut them into length-sorted batches of windows."""
        ids = self.token_ids(texts)
        pre, suf = len(self.prefix), len(self.suffix)
        plans = [window_spans(len(d), self.chunking) for d in ids]
        counts = np.array([len(starts) for starts, _ in plans], dtype=np.int64)
        lengths = np.repeat(np.array([length for _, length in plans], dtype=np.int64), counts)
        n_windows = int(counts.sum())
        width = int(lengths.max()) + pre + suf
        rows = np.full((n_windows, width), self.pad_id, dtype=np.int64)
        row = 0
        for doc, (starts, length) in zip(ids, plans):
            k = len(starts)
            block = rows[row:row + k]
            block[:, :pre] = self.prefix
            if length:
                block[:, pre:pre + length] = doc[starts[:, None] + np.arange(length)]
            block[:, pre + length:pre + length + suf] = self.suffix
            row += k
        doc_index = np.repeat(np.arange(len(ids), dtype=np.int64), counts)
        order = np.argsort(-lengths, kind="stable")
        batches = []
        start = 0
        while start < n_windows:
            padded = int(lengths[order[start]]) + pre + suf          # the longest window of this batch
            size = max(1, self.batch_tokens // padded)
            if self.max_batch_windows:
                size = min(size, self.max_batch_windows)
            pick = order[start:start + size]
            input_ids = rows[pick, :padded]
            mask = (np.arange(padded)[None, :] < (lengths[pick] + pre + suf)[:, None]).astype(np.int64)
            batches.append(WindowBatch(
                input_ids=np.ascontiguousarray(input_ids), attention_mask=mask, doc_index=doc_index[pick],
                weight=np.maximum(lengths[pick], 1).astype(np.float32),
                token_type_ids=np.zeros_like(input_ids) if self.with_token_types else None))
            start += size
        return WindowGroup(n_docs=len(ids), batches=batches, n_windows=n_windows,
                           n_doc_tokens=int(sum(len(d) for d in ids)))


def _plain_fast_tokenizer(tokenizer):
    """A copy of the tokenizer's Rust backend with truncation and padding off, or None for a slow tokenizer.

    A copy, because the backend of a Hugging Face tokenizer carries whatever truncation/padding its last call set,
    and the caller's tokenizer must not change under it.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    try:
        from tokenizers import Tokenizer
        plain = Tokenizer.from_str(backend.to_str())
    except Exception:  # a backend that cannot be serialised: use the Hugging Face call instead
        return None
    plain.no_truncation()
    plain.no_padding()
    return plain


@contextlib.contextmanager
def _quiet(logger_name: str):
    log = logging.getLogger(logger_name)
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)
