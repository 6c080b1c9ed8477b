from .fused_softmax import softmax
from .rotary import rotary_kernel

__all__ = ["softmax", "rotary_kernel"]
