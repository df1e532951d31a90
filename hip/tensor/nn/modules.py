"""A small module API over `hip.tensor.nn.functional`, forward only (no autograd): `Module`
(parameters and buffers as hip.tensor arrays, submodules, `__call__` -> forward, train()/eval(),
state_dict()/load_state_dict() from a PyTorch state_dict through DLPack or from NumPy arrays) and
Linear, Conv1d, Conv2d, ReLU, GELU, SiLU, Sigmoid, Tanh, Softmax, LogSoftmax, Dropout, LayerNorm,
GroupNorm, BatchNorm1d, BatchNorm2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, Flatten, Identity,
Sequential. Parameter names follow PyTorch's, so a PyTorch model's state_dict loads as is.
Fresh parameters are initialized on the host as PyTorch's defaults are (uniform in
+-1/sqrt(fan_in) for Linear and Conv), from NumPy's generator (not PyTorch's values).
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .._api.creation import asarray as _asarray, from_dlpack as _from_dlpack, ones as _ones, zeros as _zeros
from .._core import dtypes as _dt
from .._core.array import ndarray
from .._core.shapes import normalize_axis as _normalize_axis, prod as _prod
from . import functional as F
from ._common import ntuple as _ntuple

__all__ = ["Module", "Linear", "Conv1d", "Conv2d", "ReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax",
           "LogSoftmax", "Dropout", "LayerNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "MaxPool2d",
           "AvgPool2d", "AdaptiveAvgPool2d", "Flatten", "Identity", "Sequential"]

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])

_GPU_DLPACK = (2, 3, 10, 11)            # kDLCUDA, kDLCUDAHost, kDLROCM, kDLROCMHost


def _to_array(value, like: ndarray, key: str) -> ndarray:
    """`value` (a hip.tensor array, a PyTorch tensor or other DLPack producer, a NumPy array) as a
    fresh array of like's dtype on like's device."""
    if hasattr(value, "detach"):                     # a PyTorch tensor (autograd off)
        value = value.detach()
    if isinstance(value, ndarray):
        a = value
    elif hasattr(value, "__dlpack__"):
        dev_type = int(value.__dlpack_device__()[0]) if hasattr(value, "__dlpack_device__") else 1
        if dev_type in _GPU_DLPACK:
            a = _from_dlpack(value)
        else:
            try:
                a = _from_dlpack(value)
            except (BufferError, TypeError, ValueError, RuntimeError):
                # NumPy's DLPack has no bfloat16: widen on the host (exact) and round back on upload
                if str(getattr(value, "dtype", "")) == "torch.bfloat16":
                    a = _asarray(value.float().numpy(), dtype=_dt.bfloat16, device=like.device_id)
                else:
                    raise
    else:
        a = _asarray(np.asarray(value), device=like.device_id)
    if a.shape != like.shape:
        raise ValueError(f"load_state_dict: {key} has shape {a.shape}, the module's has {like.shape}")
    if a.device_id != like.device_id:
        a = a.to_device(like.device_id)
    return a.astype(like.dtype, copy=True)


class Module:
    """Base class: assign arrays (parameters), `register_buffer` buffers and submodules as
    attributes; define `forward`."""

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("Module.__init__() must be called before assigning attributes")
        for d in (self._parameters, self._buffers, self._modules):
            if name in d and not (d is self._buffers and (value is None or isinstance(value, ndarray))):
                del d[name]
        if isinstance(value, Module):
            self._modules[name] = value
        elif name in self._buffers:
            self._buffers[name] = value
        elif isinstance(value, ndarray) or (value is None and name in ("weight", "bias")):
            self._parameters[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for d in ("_parameters", "_buffers", "_modules"):
            table = self.__dict__.get(d)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def register_buffer(self, name: str, value) -> None:
        self._parameters.pop(name, None)
        self._buffers[name] = value

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} defines no forward")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def train(self, mode: bool = True) -> "Module":
        object.__setattr__(self, "training", bool(mode))
        for m in self._modules.values():
            m.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def children(self):
        return iter(self._modules.values())

    def named_modules(self, prefix: str = ""):
        yield prefix, self
        for name, m in self._modules.items():
            yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def _named(self, table: str):
        for mp, m in self.named_modules():
            for name, v in getattr(m, table).items():
                if v is not None:
                    yield (f"{mp}.{name}" if mp else name), m, name, v

    def named_parameters(self):
        for key, _, _, v in self._named("_parameters"):
            yield key, v

    def parameters(self):
        return (v for _, v in self.named_parameters())

    def named_buffers(self):
        for key, _, _, v in self._named("_buffers"):
            yield key, v

    def state_dict(self) -> dict:
        """Parameters and buffers by PyTorch's dotted names (the arrays themselves, not copies)."""
        return {key: v for key, _, _, v in list(self._named("_parameters")) + list(self._named("_buffers"))}

    def load_state_dict(self, state_dict, strict: bool = True) -> IncompatibleKeys:
        """Copy every entry of `state_dict` (PyTorch tensors, CPU or GPU, through DLPack; hip.tensor or
        NumPy arrays) into the module's parameter or buffer of that name, converted to its dtype.
        strict: missing or unexpected keys raise KeyError."""
        if not hasattr(state_dict, "items"):
            raise TypeError(f"load_state_dict: expected a mapping of names to tensors, got {type(state_dict).__name__}")
        own = {key: (m, table, name, v) for table in ("_parameters", "_buffers")
               for key, m, name, v in self._named(table)}
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict: missing keys {missing}, unexpected keys {unexpected}")
        loaded = {k: _to_array(state_dict[k], own[k][3], k) for k in own if k in state_dict}
        for k, a in loaded.items():                 # all converted first: a bad entry changes nothing
            m, table, name, _ = own[k]
            getattr(m, table)[name] = a
        return IncompatibleKeys(missing, unexpected)

    def to(self, dtype) -> "Module":
        """Cast the floating parameters and buffers to `dtype` (in place; returns self)."""
        d = _dt.dtype(dtype)
        for table in ("_parameters", "_buffers"):
            for _, m, name, v in list(self._named(table)):
                if v.dtype.kind == "f":
                    getattr(m, table)[name] = v.astype(d, copy=False)
        return self

    def extra_repr(self) -> str:
        return ""

    def __repr__(self):
        inner = "".join(f"\n  ({n}): " + repr(m).replace("\n", "\n  ") for n, m in self._modules.items())
        return f"{type(self).__name__}({self.extra_repr()}{inner}{chr(10) if inner else ''})"


def _weight_bias(m: Module) -> tuple:
    """(m.weight, m.bias) read from the parameter table: an attribute found by Module.__getattr__
    costs the failed ordinary lookup first (about 0.5 us, twice per layer call)."""
    p = m._parameters
    return (p["weight"] if "weight" in p else m.weight), (p["bias"] if "bias" in p else m.bias)


def _uniform(shape, bound, dtype, device):
    return _asarray(np.random.default_rng().uniform(-bound, bound, size=shape), dtype=dtype, device=device)


class Linear(Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=_dt.float32):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        self.weight = _uniform((out_features, in_features), bound, dtype, device)
        self.bias = _uniform((out_features,), bound, dtype, device) if bias else None

    def forward(self, x, activation=None, residual=None):
        """F.linear's: act(x @ weight.T + bias + residual)."""
        w, b = _weight_bias(self)
        return F.linear(x, w, b, activation=activation, residual=residual)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class _ConvNd(Module):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, device=None, dtype=_dt.float32):
        super().__init__()
        name = type(self).__name__
        k = _ntuple(kernel_size, self._nd, name, "kernel_size", 1)
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{name}: in_channels and out_channels must be divisible by groups")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, k
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        fan_in = in_channels // groups * math.prod(k)
        bound = 1.0 / math.sqrt(fan_in) if fan_in else 0.0
        self.weight = _uniform((out_channels, in_channels // groups) + k, bound, dtype, device)
        self.bias = _uniform((out_channels,), bound, dtype, device) if bias else None

    def forward(self, x, activation=None, residual=None):
        """F.conv2d's (conv1d's): act(conv(x) + bias + residual), one pass after the gemm."""
        f = F.conv1d if self._nd == 1 else F.conv2d
        w, b = _weight_bias(self)
        return f(x, w, b, self.stride, self.padding, self.dilation, self.groups, activation=activation,
                 residual=residual)

    def extra_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}")


class Conv1d(_ConvNd):
    _nd = 1


class Conv2d(_ConvNd):
    _nd = 2


class _Activation(Module):
    act: str = ""


class ReLU(_Activation):
    act = "relu"

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return F.relu(x, inplace=self.inplace)


class GELU(_Activation):
    def __init__(self, approximate: str = "none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate
        self.act = "gelu" if approximate == "none" else "gelu_tanh"

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)


class SiLU(_Activation):
    act = "silu"

    def forward(self, x):
        return F.silu(x)


class Sigmoid(_Activation):
    act = "sigmoid"

    def forward(self, x):
        return F.sigmoid(x)


class Tanh(_Activation):
    act = "tanh"

    def forward(self, x):
        return F.tanh(x)


class _AlongDim(Module):
    """A module of a function along one dimension, `dim`."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim


class Softmax(_AlongDim):
    def forward(self, x):
        return F.softmax(x, dim=self.dim)


class LogSoftmax(_AlongDim):
    def forward(self, x):
        return F.log_softmax(x, dim=self.dim)


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, x):
        return F.dropout(x, self.p, self.training, self.inplace)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=_dt.float32):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.weight = _ones(self.normalized_shape, dtype=dtype, device=device) if elementwise_affine else None
        self.bias = _zeros(self.normalized_shape, dtype=dtype, device=device) if elementwise_affine and bias else None

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class GroupNorm(Module):
    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=_dt.float32):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("GroupNorm: num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.weight = _ones((num_channels,), dtype=dtype, device=device) if affine else None
        self.bias = _zeros((num_channels,), dtype=dtype, device=device) if affine else None

    def forward(self, x):
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)


class _BatchNorm(Module):
    _dims = (2, 3)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=_dt.float32):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = _ones((num_features,), dtype=dtype, device=device) if affine else None
        self.bias = _zeros((num_features,), dtype=dtype, device=device) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", _zeros((num_features,), dtype=dtype, device=device))
            self.register_buffer("running_var", _ones((num_features,), dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", _zeros((), dtype=_dt.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)

    def forward(self, x):
        if x.ndim not in self._dims:
            raise ValueError(f"{type(self).__name__}: expected {' or '.join(map(str, self._dims))}-d input, "
                             f"got shape {x.shape}")
        use_batch = self.training or not self.track_running_stats
        momentum = self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked += 1
            if momentum is None:                        # a cumulative moving average, as PyTorch
                momentum = 1.0 / int(self.num_batches_tracked.get())
        rm = rv = None
        if not use_batch or self.training:
            bufs = self._buffers
            rm = bufs["running_mean"] if "running_mean" in bufs else self.running_mean
            rv = bufs["running_var"] if "running_var" in bufs else self.running_var
        w, b = _weight_bias(self)
        return F.batch_norm(x, rm, rv, w, b, use_batch, momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _dims = (4,)


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, x):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, x):
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self.output_size)


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        if x.ndim == 0:
            return x.reshape((1,))
        s, e = _normalize_axis(self.start_dim, x.ndim), _normalize_axis(self.end_dim, x.ndim)
        if s > e:
            raise ValueError(f"Flatten: start_dim {self.start_dim} comes after end_dim {self.end_dim}")
        return x.reshape(x.shape[:s] + (_prod(x.shape[s:e + 1]),) + x.shape[e + 1:])


class Identity(Module):
    def forward(self, x):
        return x


class Sequential(Module):
    """Modules applied in order. A Linear followed by ReLU, GELU, SiLU, Sigmoid or Tanh runs as one
    gemm plus one fused bias+activation pass."""

    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            if not isinstance(m, Module):
                raise TypeError(f"Sequential: item {i} is a {type(m).__name__}, not a Module")
            self._modules[str(i)] = m

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def forward(self, x):
        mods = list(self._modules.values())
        i = 0
        while i < len(mods):
            m = mods[i]
            nxt = mods[i + 1] if i + 1 < len(mods) else None
            if type(m) is Linear and isinstance(nxt, _Activation) and not getattr(nxt, "inplace", False):
                x = m.forward(x, activation=nxt.act)
                i += 2
            else:
                x = m(x)
                i += 1
        return x
