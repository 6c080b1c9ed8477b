"""Python bindings for the fastbpe tokenizer core."""

from ._native import Tokenizer as _NativeTokenizer

__all__ = ["Tokenizer"]


class Tokenizer:
    def __init__(self, native):
        self._native = native

    @classmethod
    def from_file(cls, vocab_path, merges_path):
        return cls(_NativeTokenizer(vocab_path, merges_path))

    def encode(self, text):
        return list(self._native.encode(text))

    def decode(self, ids):
        return self._native.decode(list(ids))
