"""sum_v7 on DTensor: torch.sum's placements, sum_v7 on each shard, values against float64.

Each test starts its own group of processes (gloo on the CPU, NCCL on two GPUs)
and checks, for every case, on every rank:
- the output placements, shape and dtype are torch.sum's on the same DTensor;
- the op itself communicates nothing, and the local result is sum_v7 of the
  local shard (so the work is the op's, not a fallback's);
- the full tensor is the float64 / exact int64 sum of the whole input, within
  the bound of tests/conftest.py plus one rounding of each partial sum to the
  output dtype.
"""

import datetime
import itertools
import json
import os
import queue
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
from conftest import random_tensor

import torch_reduce  # noqa: F401  (registers the ops and their sharding rules)

REPO = Path(__file__).resolve().parent.parent
PROCESS_TIMEOUT_S = 180
COLLECTIVE_TIMEOUT = datetime.timedelta(seconds=60)
DTYPES = [torch.float32, torch.bfloat16, torch.int32]

requires_two_gpus = pytest.mark.skipif(
    torch.cuda.device_count() < 2,
    reason=f"needs 2 CUDA devices for NCCL, found {torch.cuda.device_count()}",
)
BACKENDS = [pytest.param("gloo", id="gloo-cpu"), pytest.param("nccl", marks=requires_two_gpus)]
# sum_v7.dim_IntList runs on the CPU; its CUDA kernel lands separately (the lead's csrc/cuda/v7).
HAS_CUDA_DIM_KERNEL = torch._C._dispatch_has_kernel_for_dispatch_key(
    "reduce_opt::sum_v7.dim_IntList", "CUDA"
)
requires_cuda_dim_kernel = pytest.mark.skipif(
    not HAS_CUDA_DIM_KERNEL, reason="this build has no CUDA kernel for sum_v7.dim_IntList"
)
DIM_BACKENDS = [
    pytest.param("gloo", id="gloo-cpu"),
    pytest.param("nccl", marks=[requires_two_gpus, requires_cuda_dim_kernel]),
]


class RankGroup:
    """``world_size`` processes in one process group that run workers on request.

    Started once per module (starting processes and importing torch in them is
    most of the cost), so each test pays only for its own collectives.
    """

    def __init__(self, world_size, backend, store_path):
        context = torch.multiprocessing.get_context("spawn")
        self.world_size = world_size
        self.tasks = [context.Queue() for _ in range(world_size)]
        self.outcomes = context.Queue()
        self.processes = [
            context.Process(
                target=_serve,
                args=(rank, world_size, backend, str(store_path), self.tasks[rank], self.outcomes),
                daemon=True,
            )
            for rank in range(world_size)
        ]
        for process in self.processes:
            process.start()
        self.broken = False

    def run(self, worker, *args):
        """Run ``worker(device, *args)`` on every rank; fail the test if any rank does."""
        for tasks in self.tasks:
            tasks.put((worker, args))
        errors = {}
        deadline = time.monotonic() + PROCESS_TIMEOUT_S
        for _ in range(self.world_size):
            while True:
                try:
                    rank, error = self.outcomes.get(timeout=1)
                    break
                except queue.Empty:
                    dead = [p.exitcode for p in self.processes if not p.is_alive()]
                    if dead or time.monotonic() > deadline:
                        self.close()
                        pytest.fail(f"{worker.__name__}: ranks died ({dead}) or timed out")
            if error is not None:
                errors[rank] = error
        if errors:
            self.close()  # a rank may be stuck in a collective that the failed one left
            pytest.fail("\n".join(f"rank {rank}:\n{error}" for rank, error in errors.items()))

    def close(self):
        self.broken = True
        for tasks in self.tasks:
            tasks.put(None)
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()


def _serve(rank, world_size, backend, store_path, tasks, outcomes):
    device = torch.device("cpu")
    if backend == "nccl":
        device = torch.device("cuda", rank)
        torch.cuda.set_device(device)
    dist.init_process_group(
        backend,
        init_method=f"file://{store_path}",
        rank=rank,
        world_size=world_size,
        timeout=COLLECTIVE_TIMEOUT,
    )
    try:
        while (task := tasks.get()) is not None:
            worker, args = task
            try:
                worker(device, *args)
                outcomes.put((rank, None))
            except Exception:
                outcomes.put((rank, traceback.format_exc()))
    finally:
        dist.destroy_process_group()


@pytest.fixture(scope="module")
def rank_groups(tmp_path_factory):
    """rank_groups(world_size, backend): a started RankGroup, shared by the module's tests."""
    groups = {}
    store_dir = tmp_path_factory.mktemp("dtensor")
    started = itertools.count()

    def get(world_size, backend):
        key = (world_size, backend)
        if key not in groups or groups[key].broken:
            store_path = store_dir / f"store-{next(started)}"  # a FileStore file serves one group
            groups[key] = RankGroup(world_size, backend, store_path)
        return groups[key]

    yield get
    for group in groups.values():
        if not group.broken:
            group.close()


# ---- checks run on every rank ------------------------------------------------


def sum_v7(t, *args, **kwargs):
    return torch.ops.reduce_opt.sum_v7(t, *args, **kwargs)


def mesh_1d(device):
    from torch.distributed.device_mesh import init_device_mesh

    return init_device_mesh(device.type, (dist.get_world_size(),))


def same_random_tensor(shape, dtype, seed):
    """The same data on every rank (CPU generator), so each rank knows the whole input."""
    torch.manual_seed(seed)
    numel = 1
    for size in shape:
        numel *= size
    return random_tensor(numel, dtype, "cpu").reshape(shape)


def check_against_torch_sum(
    dtensor, reduce_args, reduce_kwargs, full_input, message, torch_args=None
):
    """Compare sum_v7 with torch.sum on ``dtensor``, and both with the exact sum.

    ``torch_args`` replaces ``reduce_args`` for torch.sum, for a call that means the same.
    """
    from torch.distributed.tensor import DTensor, Partial
    from torch.distributed.tensor.debug import CommDebugMode

    with CommDebugMode() as comm:
        ours = sum_v7(dtensor, *reduce_args, **reduce_kwargs)
    assert comm.get_total_counts() == 0, f"{message}: sum_v7 communicated {comm.get_comm_counts()}"
    theirs = torch.sum(dtensor, *(torch_args or reduce_args), **reduce_kwargs)
    assert ours.placements == theirs.placements, f"{message}: {ours.placements}"
    assert ours.shape == theirs.shape, message
    assert ours.dtype == theirs.dtype == ours.to_local().dtype, message

    local = ours.to_local()
    expected_local = sum_v7(dtensor.to_local(), *reduce_args, **reduce_kwargs)
    assert torch.equal(local, expected_local), f"{message}: local result is not sum_v7's"

    partial_abs = torch.zeros((), dtype=torch.float64)
    if any(isinstance(p, Partial) for p in ours.placements):
        # The sum of the partials' magnitudes, in the output's global shape.
        partial_abs = DTensor.from_local(
            local.double().abs(),
            ours.device_mesh,
            ours.placements,
            shape=ours.shape,
            stride=ours.stride(),
        ).full_tensor()
    assert_close_to_exact(
        ours.full_tensor().cpu(),
        theirs.full_tensor().cpu(),
        full_input,
        reduce_args,
        reduce_kwargs,
        partial_abs.cpu(),
        message,
    )
    return ours


def assert_close_to_exact(result, torch_result, x, reduce_args, reduce_kwargs, partial_abs, msg):
    """Elementwise version of conftest.assert_close_to_reference, for sums of DTensors.

    Within a tree sum's bound in the accumulation type, or 2x torch.sum's error
    on the same DTensor; plus the output dtype's rounding of the result and of
    each rank's partial sum (Partial outputs are rounded before the all-reduce).
    """
    shape_kwargs = {key: value for key, value in reduce_kwargs.items() if key != "dtype"}
    if not result.dtype.is_floating_point:
        exact = torch.sum(x, *reduce_args, dtype=torch.int64, **shape_kwargs)
        assert torch.equal(result, exact), msg
        return
    reference = torch.sum(x.double(), *reduce_args, **shape_kwargs)
    abs_sum = torch.sum(x.double().abs(), *reduce_args, **shape_kwargs)
    terms = x.numel() // max(reference.numel(), 1)
    accumulate = torch.float64 if result.dtype == torch.float64 else torch.float32
    tree_bound = 2 * torch.finfo(accumulate).eps * max(terms, 2).bit_length() * abs_sum
    torch_error = (torch_result.double() - reference).abs()
    eps = torch.finfo(result.dtype).eps
    tolerance = torch.maximum(tree_bound, 2 * torch_error) + eps * (reference.abs() + partial_abs)
    error = (result.double() - reference).abs()
    worst = (error - tolerance).argmax() if error.numel() else None
    assert bool((error <= tolerance).all()), (
        f"{msg}: error {error.flatten()[worst]} > tolerance {tolerance.flatten()[worst]}"
    )


FULL_SUM_CASES = [  # (global shape, the dim sharded on the 1-D mesh, None for Replicate)
    ((8, 5), 0),  # even shards
    ((4, 5), 0),  # 2 rows a rank; over 3 ranks 2, 2 and 0: an empty shard
    ((7, 5), 0),  # uneven: 4 and 3 rows
    ((7, 5), 1),  # uneven: 3 and 2 columns
    ((7, 5), None),
    ((1001,), 0),
    ((3, 4, 5), 2),
    ((6, 0), 0),  # no elements at all
]


def full_sum_worker(device, seed):
    from torch.distributed.tensor import Partial, Replicate, Shard, distribute_tensor

    mesh = mesh_1d(device)
    for case, ((shape, shard_dim), dtype) in enumerate(itertools.product(FULL_SUM_CASES, DTYPES)):
        x = same_random_tensor(shape, dtype, seed + case)
        placement = Replicate() if shard_dim is None else Shard(shard_dim)
        dtensor = distribute_tensor(x.to(device), mesh, [placement])
        message = f"seed={seed + case} shape={shape} {placement} {dtype}"
        ours = check_against_torch_sum(dtensor, (), {}, x, message)
        expected = Replicate() if shard_dim is None else Partial("sum")
        assert ours.placements == (expected,), message
        assert ours.shape == (), message


def partial_input_worker(device, seed):
    """A Partial("sum") input stays Partial: each rank sums its own addend."""
    from torch.distributed.tensor import DTensor, Partial

    mesh = mesh_1d(device)
    world_size = dist.get_world_size()
    for case, dtype in enumerate(DTYPES):
        first_seed = seed + case * world_size
        addends = [same_random_tensor((5, 3), dtype, first_seed + r) for r in range(world_size)]
        dtensor = DTensor.from_local(addends[dist.get_rank()].to(device), mesh, [Partial("sum")])
        # The whole value is the sum of the addends; summing their elements is the same sum.
        whole = torch.cat(addends)
        message = f"seed={first_seed} Partial {dtype}"
        ours = check_against_torch_sum(dtensor, (), {}, whole, message)
        assert ours.placements == (Partial("sum"),), message


def low_precision_worker(device, seed):
    """bfloat16 and float16: each rank rounds its partial sum to the output dtype
    once, and the all-reduce adds the partials in that dtype, as torch.sum does."""
    from torch.distributed.tensor import Shard, distribute_tensor

    mesh = mesh_1d(device)
    for case, dtype in enumerate([torch.bfloat16, torch.float16]):
        x = same_random_tensor((4096,), dtype, seed + case)
        dtensor = distribute_tensor(x.to(device), mesh, [Shard(0)])
        for op in (sum_v7, torch.sum):
            result = op(dtensor)
            gathered = [torch.empty_like(result.to_local()) for _ in range(dist.get_world_size())]
            dist.all_gather(gathered, result.to_local())
            assert result.to_local().dtype == dtype
            combined_in_float32_rounded_once = torch.stack(gathered).float().sum().to(dtype)
            assert torch.equal(result.full_tensor(), combined_in_float32_rounded_once), (
                f"seed={seed + case} {dtype} {op}"
            )
        # dtype=torch.float32 keeps the partials in float32 and all-reduces them in float32.
        message = f"seed={seed + case} {dtype} summed with dtype=torch.float32"
        ours = check_against_torch_sum(dtensor, (), {"dtype": torch.float32}, x, message)
        assert ours.to_local().dtype == torch.float32, message


def shorter_than_mesh_worker(device, seed):
    """Sharded dims with fewer entries than ranks: some ranks hold nothing."""
    from torch.distributed.tensor import Shard, distribute_tensor

    mesh = mesh_1d(device)
    world_size = dist.get_world_size()
    for case, dtype in enumerate(DTYPES):
        for rows in range(world_size):
            x = same_random_tensor((rows, 3), dtype, seed + case)
            dtensor = distribute_tensor(x.to(device), mesh, [Shard(0)])
            result = sum_v7(dtensor)
            message = f"seed={seed + case} rows={rows} {dtype}"
            exact = torch.sum(x, dtype=torch.float64 if dtype.is_floating_point else torch.int64)
            assert result.dtype == torch_reduce.result_dtype(dtype), message
            full = result.full_tensor().cpu()
            if dtype.is_floating_point:
                tolerance = torch.finfo(dtype).eps * x.double().abs().sum() * 2
                assert abs(full.double() - exact) <= tolerance, message
            else:
                assert full == exact, message


DIM_CASES = [  # (dim, keepdim) on a 3-dim tensor; cases run in turn on the same DTensor
    ([0], False),
    ([1], False),
    ([2], True),
    ([-1], False),
    ([0, 2], False),
    ([2, 0], True),
    ([1], True),
    (None, False),
    ([], True),
]


def dim_sum_worker(device, seed):
    """Reducing the sharded dim gives Partial; reducing others keeps the shard,
    renumbered when keepdim is False. Shape (5, 4, 3) shards unevenly on dims
    0 and 2. A Partial input stays Partial."""
    from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor

    mesh = mesh_1d(device)
    shape = (5, 4, 3)
    placements = [Shard(0), Shard(1), Shard(2), Replicate()]
    for case, (placement, dtype) in enumerate(itertools.product(placements, DTYPES)):
        x = same_random_tensor(shape, dtype, seed + case)
        dtensor = distribute_tensor(x.to(device), mesh, [placement])
        for dim, keepdim in DIM_CASES:
            message = f"seed={seed + case} {placement} {dtype} dim={dim} keepdim={keepdim}"
            # dim=[] reduces every dim, like None; torch.sum on a DTensor (torch 2.14.1)
            # keeps Shard(d) for [] and cannot gather its 0-dim result, so compare with None.
            torch_args = (dim or None, keepdim)
            check_against_torch_sum(dtensor, (dim, keepdim), {}, x, message, torch_args)

    world_size = dist.get_world_size()
    for case, dtype in enumerate(DTYPES):
        first_seed = seed + 100 + case * world_size
        addends = [same_random_tensor((5, 3), dtype, first_seed + r) for r in range(world_size)]
        dtensor = DTensor.from_local(addends[dist.get_rank()].to(device), mesh, [Partial("sum")])
        for dims, keepdim in itertools.product(([1], [0, 1], [-2]), (False, True)):
            # Summed over dims[0] (and more), concatenating along dims[0] gives the same sums.
            whole = torch.cat(addends, dim=dims[0])
            message = f"seed={first_seed} Partial {dtype} dim={dims} keepdim={keepdim}"
            ours = check_against_torch_sum(dtensor, (dims, keepdim), {}, whole, message)
            assert ours.placements == (Partial("sum"),), message


MESH_2D_CASES = [  # (global shape, placements on a 2 x 2 mesh)
    ((6, 5), ("S0", "S1")),
    ((7, 5), ("S0", "R")),
    ((7, 5), ("R", "S1")),
    ((9, 5), ("S0", "S0")),  # rows split in 2, then each half in 2 again: 3, 2, 2, 2
]


def parse_placement(name):
    from torch.distributed.tensor import Replicate, Shard

    return Replicate() if name == "R" else Shard(int(name[1:]))


def mesh_2d_worker(device, seed):
    """Each mesh dim follows the 1-D rules on its own."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Partial, Replicate, distribute_tensor

    mesh = init_device_mesh(device.type, (2, 2))
    cases = itertools.product(MESH_2D_CASES, DTYPES)
    for case, ((shape, names), dtype) in enumerate(cases):
        x = same_random_tensor(shape, dtype, seed + case)
        placements = [parse_placement(name) for name in names]
        dtensor = distribute_tensor(x.to(device), mesh, placements)
        message = f"seed={seed + case} shape={shape} {names} {dtype}"
        ours = check_against_torch_sum(dtensor, (), {}, x, message)
        expected = tuple(Replicate() if name == "R" else Partial("sum") for name in names)
        assert ours.placements == expected, message


# ---- tests ---------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_full_sum_placements(backend, rank_groups, seed):
    rank_groups(2, backend).run(full_sum_worker, seed)


@pytest.mark.parametrize("backend", DIM_BACKENDS)
def test_dim_sum_placements(backend, rank_groups, seed):
    rank_groups(2, backend).run(dim_sum_worker, seed)


@pytest.mark.parametrize("backend", BACKENDS)
def test_partial_input_stays_partial(backend, rank_groups, seed):
    rank_groups(2, backend).run(partial_input_worker, seed)


@pytest.mark.parametrize("backend", BACKENDS)
def test_low_precision_partials_combined_like_torch_sum(backend, rank_groups, seed):
    rank_groups(2, backend).run(low_precision_worker, seed)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sharded_dim_shorter_than_mesh(backend, rank_groups, seed):
    rank_groups(2, backend).run(shorter_than_mesh_worker, seed)


def test_empty_shard_three_ranks(rank_groups, seed):
    # 4 entries over 3 ranks are chunks of 2, 2 and 0: the last rank sums an empty shard
    # (shape (4, 5) in the full sums, dim 1 of (5, 4, 3) in the dim sums).
    group = rank_groups(3, "gloo")
    group.run(full_sum_worker, seed)
    group.run(dim_sum_worker, seed)


def test_2d_mesh_four_ranks(rank_groups, seed):
    rank_groups(4, "gloo").run(mesh_2d_worker, seed)


def test_benchmark_smoke_on_gloo(tmp_path):
    """benchmarks/dtensor_sum.py runs end to end (2 CPU ranks, a small tensor)."""
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node",
        "2",
    ]
    command += ["-m", "benchmarks.dtensor_sum", "--device", "cpu", "--log2", "12", "--iters", "2"]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])}
    proc = subprocess.run(
        [*command, "--out", str(tmp_path)],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=PROCESS_TIMEOUT_S,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads((tmp_path / "results.json").read_text())
    assert all(check["ok"] for check in results["check"]["results"].values()), results["check"]
    variants = [row["variant"] for row in results["rows"]]
    assert variants == ["sum_v7 DTensor", "torch.sum DTensor", "baseline", "local only"]
    assert all(row["time_us"] > 0 for row in results["rows"]), results["rows"]
    assert results["metadata"]["local_elements"] == [2048, 2048]
    assert (tmp_path / "summary.md").is_file()
