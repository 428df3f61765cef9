"""A clear error for jagged nested tensors.

A jagged NestedTensor is a Python tensor subclass: its ``__torch_dispatch__``
answers an op it has no rule for with a NotImplementedError whose whole
message is the op's name. The rule registered here says what is wrong instead.
(Strided-layout nested tensors reach the C++ kernels, which reject them.)
"""

import torch

# The class has no public name; torch.nested creates instances of it.
from torch.nested._internal.nested_tensor import NestedTensor


def _reject(cls, func, types, args, kwargs):
    raise NotImplementedError(
        f"{func.name()}: nested tensors are not supported (got a jagged-layout "
        "NestedTensor); sum its values() or unbind() it"
    )


def register(op_names: list[str]) -> None:
    for name in op_names:
        packet = getattr(torch.ops.reduce_opt, name)
        for overload in packet.overloads():
            torch.library.register_torch_dispatch(getattr(packet, overload), NestedTensor, _reject)
