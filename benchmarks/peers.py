"""The registry of what is timed: one entry per peer. Adding a peer is adding
one entry to PEERS (the read roofline, which sweeps configurations, lives in
roofline.py and is named here).

A peer builds, for a case, the callable that is checked and then timed; it may
decline a case with a one-line reason (the report lists them).
"""

from __future__ import annotations

import dataclasses
import itertools
import types
from collections.abc import Callable

import torch

import torch_reduce
from benchmarks.inputs import Case

SumFn = Callable[[torch.Tensor], torch.Tensor]

TORCH_SUM = "torch.sum"
INDUCTOR = "Inductor"
CUB = "CUB"
V7 = "sum_v7"
ROOFLINE = "read roofline"
CUB_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.int32)


@dataclasses.dataclass(frozen=True)
class Peer:
    name: str
    build: Callable[[Case], SumFn]
    # Why the peer does not run on this case's input x, or None if it does.
    declines: Callable[[Case, torch.Tensor], str | None] = lambda case, x: None
    # v0..v6: run only in the step-table scenarios (eager, graph), float32 full sums.
    ladder: bool = False


def torch_sum(case: Case) -> SumFn:
    if case.dims is None:
        return torch.sum
    return lambda x: torch.sum(x, case.dims, case.keepdim)


_compiled: dict[tuple, SumFn] = {}
_fresh_names = itertools.count()


def inductor(case: Case) -> SumFn:
    """torch.compile(torch.sum), compiled for this case's shape, strides and dims.

    Dynamo keeps its compiled entries, and counts recompilations against its
    limit, per code object. Every case gets its own copy of the code, so no
    case can fall back to eager after the limit; should it happen anyway, the
    call raises (fail_on_recompile_limit_hit) and the check reports it.
    """
    torch._dynamo.config.fail_on_recompile_limit_hit = True
    dims, keepdim = case.dims, case.keepdim

    def reduce(x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x) if dims is None else torch.sum(x, dims, keepdim)

    code = reduce.__code__.replace(co_name=f"inductor_sum_{next(_fresh_names)}")
    fresh = types.FunctionType(code, reduce.__globals__, code.co_name, None, reduce.__closure__)
    return torch.compile(fresh, dynamic=False, fullgraph=True)


def inductor_for_input(case: Case) -> SumFn:
    """One compiled callable per (shape, strides, dtype, dims): scenarios share it."""
    probe = case.make(torch.device("meta"))
    key = (tuple(probe.shape), probe.stride(), case.dtype, case.dims, case.keepdim)
    if key not in _compiled:
        _compiled[key] = inductor(case)
    return _compiled[key]


def cub_declines(case: Case, x: torch.Tensor) -> str | None:
    if not x.is_cuda:
        return "needs CUDA"
    if case.dims is not None:
        return "full sums only"
    if case.dtype not in CUB_DTYPES:
        return f"no {case.dtype} build"
    return None if x.is_contiguous() else "contiguous inputs only"


def v7(case: Case) -> SumFn:
    if case.dims is None:
        return torch.ops.reduce_opt.sum_v7
    return lambda x: torch.ops.reduce_opt.sum_v7(x, case.dims, case.keepdim)


def v7_declines(case: Case, x: torch.Tensor) -> str | None:
    if case.dims is not None and "dim_IntList" not in torch.ops.reduce_opt.sum_v7.overloads():
        return "this build has no sum_v7.dim_IntList overload"
    return None


def version(number: int) -> Peer:
    op = getattr(torch.ops.reduce_opt, f"sum_v{number}")
    return Peer(f"sum_v{number}", lambda case: op, ladder=True)


PEERS: list[Peer] = [
    Peer(TORCH_SUM, torch_sum),
    Peer(INDUCTOR, inductor_for_input),
    Peer(CUB, lambda case: torch.ops.reduce_opt._cub_sum, cub_declines),
    *(version(v.number) for v in torch_reduce.VERSIONS if v.number != 7),
    Peer(V7, v7, v7_declines),
]
NAMES = [peer.name for peer in PEERS] + [ROOFLINE]
