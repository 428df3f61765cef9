"""CUDA sum-reduction kernels v0..v7 as PyTorch custom ops.

Importing the package registers ``torch.ops.reduce_opt.sum_v0`` ..
``sum_v7``; ``sum_v7`` is the production drop-in for ``torch.sum(t)``.
"""

import torch  # noqa: F401  (loads libtorch, which _C links against)

from torch_reduce import (
    _C,  # noqa: F401  (loading the library registers the ops)
    _nested,
    _sharding,  # noqa: F401  (DTensor sharding rules for sum_v7)
)
from torch_reduce._ops import SUPPORTED_DTYPES, VERSIONS, Version, result_dtype, sum  # noqa: A004

_nested.register([f"sum_v{version.number}" for version in VERSIONS])

__all__ = ["SUPPORTED_DTYPES", "VERSIONS", "Version", "result_dtype", "sum"]
