"""DTensor sharding rules for sum_v7: the placements torch.sum gives.

Every rank runs sum_v7 on its own shard and nothing is communicated; the rules
only tell DTensor what the local results mean. A sum over a sharded dim leaves
per-rank partial sums (``Partial("sum")``) in the output dtype, combined by an
all-reduce in that dtype when the user redistributes them (``full_tensor()``,
``redistribute(mesh, [Replicate()])``), exactly as for torch.sum.

The rules are registered when ``torch.distributed.tensor`` is imported (at
once if it already is), so that single-device users do not pay for importing
DTensor with ``import torch_reduce``.
"""

import importlib.abc
import importlib.util
import sys

import torch

DTENSOR_MODULE = "torch.distributed.tensor"
SUM = "sum"


def _placement_rules(ndim: int, reduced: set[int], keepdim: bool) -> list:
    """(output placements, input placements) pairs for one mesh dim.

    DTensor expands them to every mesh dim and picks the cheapest pair for the
    input's placements: none needs communication when the input matches one.
    """
    from torch.distributed.tensor import Partial, Replicate, Shard

    rules = [([Replicate()], [Replicate()]), ([Partial(SUM)], [Partial(SUM)])]
    for d in range(ndim):
        if d in reduced:
            output = Partial(SUM)
        else:
            output = Shard(d if keepdim else d - sum(r < d for r in reduced))
        rules.append(([output], [Shard(d)]))
    return rules


def register() -> None:
    """Register the rules for every overload of sum_v7 with DTensor."""
    from torch.distributed.tensor.experimental import register_sharding

    @register_sharding(torch.ops.reduce_opt.sum_v7.default)
    def _full_sum(self, *, dtype=None):
        return _placement_rules(self.ndim, set(range(self.ndim)), keepdim=False)


class _RegisterAfterDTensorImport(importlib.abc.MetaPathFinder):
    """Runs ``register()`` right after ``torch.distributed.tensor`` is executed."""

    def find_spec(self, fullname, path, target=None):
        if fullname != DTENSOR_MODULE:
            return None
        sys.meta_path.remove(self)  # one shot; also keeps the lookup below from recursing
        spec = importlib.util.find_spec(fullname)
        execute = spec.loader.exec_module

        def exec_then_register(module):
            execute(module)
            register()

        spec.loader.exec_module = exec_then_register
        return spec


if torch.distributed.is_available():
    if DTENSOR_MODULE in sys.modules:
        register()
    else:
        sys.meta_path.insert(0, _RegisterAfterDTensorImport())
