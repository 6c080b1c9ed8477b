import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Multi-layer perceptron with ReLU between hidden layers. Weights live in
    ParameterLists and the forward pass calls F.linear directly.
    """

    def __init__(self, input_size, layer_sizes, output_size):
        super().__init__()
        dims = [input_size, *layer_sizes, output_size]
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for d_in, d_out in zip(dims[:-1], dims[1:]):
            w = nn.Parameter(torch.empty(d_out, d_in))
            nn.init.kaiming_uniform_(w, a=math.sqrt(5))
            b = nn.Parameter(torch.empty(d_out).uniform_(-1 / math.sqrt(d_in), 1 / math.sqrt(d_in)))
            self.weights.append(w)
            self.biases.append(b)

    def forward(self, x):
        n_layers = len(self.weights)
        for i in range(n_layers):
            x = F.linear(x, self.weights[i], self.biases[i])
            if i != n_layers - 1:
                x = F.relu(x)
        return x


batch_size = 4
input_size = 32
layer_sizes = [64, 48]
output_size = 10


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, layer_sizes, output_size]
