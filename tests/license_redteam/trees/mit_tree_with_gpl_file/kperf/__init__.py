"""kperf: a small auto-tuner for GPU kernels."""

from .tuner import tune, TuneResult  # noqa: F401

__version__ = "0.9.1"
__all__ = ["tune", "TuneResult"]


def _default_search_space():
    return {
        "block_size_x": [64, 128, 256, 512],
        "tile_size": [1, 2, 4, 8],
        "unroll": [0, 1],
    }
