"""`hip.tensor.nn.functional`: PyTorch's `torch.nn.functional` names, forward only (no autograd),
for float16, bfloat16, float32 and float64 hip.tensor arrays."""
from ._activation import *  # noqa: F401,F403
from ._softmax import *  # noqa: F401,F403
from ._norm import *  # noqa: F401,F403
from ._loss import *  # noqa: F401,F403
from ._pool import *  # noqa: F401,F403
from ._conv import *  # noqa: F401,F403
from . import _activation, _conv, _loss, _norm, _pool, _softmax

__all__ = (_activation.__all__ + _softmax.__all__ + _norm.__all__ + _loss.__all__ + _pool.__all__
           + _conv.__all__)
