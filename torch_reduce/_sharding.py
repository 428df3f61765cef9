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

import dataclasses
import importlib.abc
import importlib.util
import sys

import torch

from torch_reduce._ops import _reduced_dims

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

    sum_v7 = torch.ops.reduce_opt.sum_v7

    @register_sharding(sum_v7.default)
    def _full_sum(self, *, dtype=None):
        return _placement_rules(self.ndim, set(range(self.ndim)), keepdim=False)

    @register_sharding(sum_v7.dim_IntList)
    def _dim_sum(self, dim, keepdim=False, *, dtype=None):
        reduced = set(_reduced_dims(self.ndim, dim, "reduce_opt::sum_v7"))
        return _placement_rules(self.ndim, reduced, keepdim)

    _key_sharding_cache_on_dim_and_keepdim(sum_v7.dim_IntList)


def _key_sharding_cache_on_dim_and_keepdim(overload) -> None:
    """Make DTensor's sharding cache tell calls with different ``dim`` / ``keepdim`` apart.

    register_sharding keys the cache on the arguments from the first int-typed
    one on (torch 2.11 to 2.14.1). In ``sum_v7.dim_IntList`` that is ``dtype``
    (a ScalarType is an int in a schema; ``int[1]? dim`` is not), so a second
    call with another ``dim`` would reuse the first call's output placement and
    shape. register_sharding takes no schema info, hence this one private
    table; tests/test_dtensor.py runs several dims on one DTensor to hold it.
    """
    from torch.distributed.tensor import DTensor

    propagator = DTensor._op_dispatcher.sharding_propagator
    schema_info = propagator.op_to_schema_info[overload]
    if schema_info.static_argnum > 1:
        propagator.op_to_schema_info[overload] = dataclasses.replace(schema_info, static_argnum=1)


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
