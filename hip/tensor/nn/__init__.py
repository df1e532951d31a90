"""`hip.tensor.nn`: neural-network operators (`functional`) and a small module API, forward only
(no autograd).

    import hip.tensor as ht
    F = ht.nn.functional
    y = F.softmax(F.linear(x, w, b, activation="relu"), dim=-1)
    model = ht.nn.Sequential(ht.nn.Linear(784, 256), ht.nn.ReLU(), ht.nn.Linear(256, 10))
    model.load_state_dict(torch_model.state_dict())

Layout: _common (checks, block reductions), _activation (activations, clamp, where, dropout,
linear), _softmax, _norm (layer/group/batch norm), _loss, _pool, _conv (im2col + hipBLAS),
functional (the public functions), modules (Module, Linear, Conv2d, ...), utils (fusing an
eval-mode BatchNorm into the convolution before it).
"""
from . import functional, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
