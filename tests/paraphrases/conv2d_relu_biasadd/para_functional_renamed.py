import torch
import torch.nn as nn
import torch.nn.functional as F


class RectifiedShiftedFilter(nn.Module):
    """Filter bank, then a rectifier, then a learned per-channel offset."""

    def __init__(self, c_in, c_out, k, offset_shape):
        super().__init__()
        self.kernel = nn.Parameter(torch.empty(c_out, c_in, k, k))
        self.kernel_bias = nn.Parameter(torch.zeros(c_out))
        nn.init.kaiming_uniform_(self.kernel, a=5 ** 0.5)
        self.offset = nn.Parameter(torch.randn(offset_shape))

    def forward(self, img):
        feats = F.conv2d(img, self.kernel, self.kernel_bias)
        return F.relu(feats) + self.offset


N_IMAGES = 7
CIN, COUT = 5, 11
SIDE = 19
K = 5


def get_inputs():
    return [torch.randn(N_IMAGES, CIN, SIDE, SIDE)]


def get_init_inputs():
    return [CIN, COUT, K, (COUT, 1, 1)]
