import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Convolutional feature block.

    The block extracts local features with a learnable filter bank, re-centres
    every feature map with its own learnable offset and finally keeps only the
    positive responses.

    Args:
        c_in: number of channels of the incoming image batch.
        c_out: number of feature maps produced.
        k: spatial extent of each filter.
        offset_shape: shape of the learnable per-map offset, broadcastable to
            (c_out, H', W').
    """

    def __init__(self, c_in, c_out, k, offset_shape):
        super().__init__()
        self.feature_extractor = nn.Conv2d(c_in, c_out, k)
        self.channel_offset = nn.Parameter(torch.randn(offset_shape))

    def forward(self, images):
        responses = self.feature_extractor(images)
        responses = responses + self.channel_offset
        return responses.clamp_min(0.0)  # keep positive responses only


N_IMAGES = 2
C_IN, C_OUT = 3, 6
IMG = 20
K = 3


def get_inputs():
    return [torch.rand(N_IMAGES, C_IN, IMG, IMG)]


def get_init_inputs():
    return [C_IN, C_OUT, K, (C_OUT, 1, 1)]
