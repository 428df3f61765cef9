"""sum_v7 over dims and with dtype=: torch.sum(x, dim, keepdim, dtype=...)'s results,
shapes, dtypes, errors and integrations (autograd, opcheck, compile, export, CUDA graphs)."""

import math

import pytest
import torch
from conftest import (
    DEVICES,
    assert_matches_torch,
    exact_gpu_sum,
    random_shaped,
    random_tensor,
    requires_cuda,
    skip_unless_free,
)

import torch_reduce

SUM_V7 = torch.ops.reduce_opt.sum_v7
NAME = "reduce_opt::sum_v7"
DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int32,
    torch.int64,
    torch.bool,
    torch.uint8,
]


def dims_for(ndim):
    """Every kind of `dim` argument for an ndim-dim tensor: single, negative,
    several, all of them, None and the empty list."""
    cases = [0, -1, [ndim - 1], tuple(range(ndim)), None, []]
    if ndim >= 2:
        cases += [[0, -1], -2]
    if ndim >= 3:
        cases += [(1, 2), [-1, 0, 1]]
    return cases


SHAPES = [
    (4096,),
    (1, 4096),
    (10**6, 3),
    (3, 10**6),
    (64, 1024, 64),
    (1,),
    (7, 1, 9),
    (3, 5, 7, 11),
    (2, 3, 1, 5, 7),
]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_shapes_and_dims(device, shape, keepdim, seed):
    x = random_shaped(shape, torch.float32, device)
    for dim in dims_for(len(shape)):
        assert_matches_torch(SUM_V7(x, dim, keepdim), x, dim, keepdim, message=f"seed={seed}")


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape", [(257, 33), (1, 4096), (1000, 3), (3, 5, 7, 11)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_dtypes(device, dtype, shape, keepdim, seed):
    x = random_shaped(shape, dtype, device)
    for dim in dims_for(len(shape)):
        assert_matches_torch(SUM_V7(x, dim, keepdim), x, dim, keepdim, message=f"seed={seed}")


def layouts(dtype, device):
    """Views of 4-D data that a sum must read where they lie."""
    base = random_shaped((8, 6, 10, 12), dtype, device)
    return {
        "contiguous": base,
        "transposed": base.transpose(1, 3),
        "channels_last": base.contiguous(memory_format=torch.channels_last),
        "sliced": base[:, 1:5, ::2, 3:],
        "expanded": base[:, :1].expand(8, 6, 10, 12),
        "permuted": base.permute(2, 0, 3, 1),
    }


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32], ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_layouts(device, dtype, keepdim, seed):
    for layout, x in layouts(dtype, device).items():
        for dim in [1, -1, (2, 3), (0, 2), [0, 1, 3], None]:
            result = SUM_V7(x, dim, keepdim)
            assert_matches_torch(result, x, dim, keepdim, message=f"{layout} seed={seed}")


def repeated(dtype, device):
    """Expanded views whose stride-0 dims sum as their count times one stored
    slice: one repeated dim, two of them around a real one, and a repeated
    dim inside a real one's rows."""
    return {
        "rows of one row": random_shaped((1, 300), dtype, device).expand(7, 300),
        "two repeated dims": random_shaped((1, 5, 1, 33), dtype, device).expand(6, 5, 4, 33),
        "repeated inner dim": random_shaped((9, 1), dtype, device).expand(9, 257),
    }


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_repeated_dims(device, dtype, keepdim, seed):
    for name, x in repeated(dtype, device).items():
        for dim in dims_for(x.dim()):
            result = SUM_V7(x, dim, keepdim)
            assert_matches_torch(result, x, dim, keepdim, message=f"{name} seed={seed}")


@pytest.mark.parametrize("device", DEVICES)
def test_repeated_dims_keep_torch_sum_semantics(device, seed):
    """The repeats multiply the slice's sum before the result is rounded or
    wrapped, so overflow, NaN, integer wrap-around and dtype= come out as
    torch.sum's of every repeat."""
    # float16: the slice sums to < 65504, its 16 repeats to more: inf.
    slice_ = (torch.rand(1, 64, device=device) * 20 + 100).half()
    assert torch.isinf(SUM_V7(slice_.expand(16, 64))).item()
    assert torch.equal(SUM_V7(slice_.expand(16, 64), 0), torch.sum(slice_.expand(16, 64), 0))
    with_nan = random_shaped((1, 40), torch.float32, device)
    with_nan[0, 7] = float("nan")
    assert torch.isnan(SUM_V7(with_nan.expand(3, 40))).item()
    # int64: 8 repeats of 2^62-sized values wrap as their sum does.
    big = torch.randint(2**61, 2**62, (1, 9), dtype=torch.int64, device=device)
    assert torch.equal(SUM_V7(big.expand(8, 9)).cpu(), big.expand(8, 9).cpu().sum())
    narrow = torch.randint(-(2**30), 2**30, (1, 17), dtype=torch.int32, device=device)
    wide = narrow.expand(5, 17)
    expected = wide.cpu().sum(0, dtype=torch.int16)
    assert torch.equal(SUM_V7(wide, 0, dtype=torch.int16).cpu(), expected), f"seed={seed}"
    bf16 = random_shaped((1, 3, 50), torch.bfloat16, device).expand(4, 3, 50)
    assert_matches_torch(
        SUM_V7(bf16, (0, 2), dtype=torch.float32), bf16, (0, 2), False, torch.float32
    )


@pytest.mark.parametrize("device", DEVICES)
def test_transposed_matrix(device, seed):
    """A 2-D transpose turns a row sum into a column sum and back."""
    x = random_shaped((777, 1025), torch.float32, device).t()
    for dim in (0, 1):
        assert_matches_torch(SUM_V7(x, dim), x, dim, False, message=f"seed={seed}")


REQUESTED_DTYPES = [
    (torch.bfloat16, torch.float32),
    (torch.float16, torch.float32),
    (torch.int32, torch.float32),
    (torch.float32, torch.float64),
    (torch.int32, torch.int64),
    (torch.uint8, torch.int64),
    (torch.bool, torch.int64),
    (torch.float32, torch.float16),
    (torch.int64, torch.int32),
    (torch.float32, torch.bool),
]


@pytest.mark.parametrize(("dtype", "requested"), REQUESTED_DTYPES, ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_requested_dtype(device, dtype, requested, seed):
    """dtype= sums x.to(dtype) into that dtype, on both overloads."""
    x = random_shaped((33, 17, 65), dtype, device)
    for dim in [1, (0, 2), None]:
        for keepdim in (False, True):
            result = SUM_V7(x, dim, keepdim, dtype=requested)
            assert_matches_torch(result, x, dim, keepdim, requested, message=f"seed={seed}")
    full = SUM_V7(x, dtype=requested)
    assert_matches_torch(full, x, None, False, requested, message=f"full seed={seed}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_integer_valued_floats_sum_exactly(device, dtype, seed):
    """Small integers add without rounding in float32 accumulation, so every output
    must be the exact sum rounded once: one element dropped or read twice shows."""
    values = torch.randint(-8, 9, (64, 1024, 64), device=device)
    x = values.to(dtype)
    for dim in [0, 1, 2, (0, 2), (1, 2), None]:
        expected = values.sum(dim).to(torch.float64).to(dtype)
        assert torch.equal(SUM_V7(x, dim), expected), f"dim={dim} seed={seed}"


@pytest.mark.parametrize("device", DEVICES)
def test_special_values_stay_in_their_row(device, seed):
    x = random_shaped((5, 1000), torch.float32, device)
    x[1, 17] = float("nan")
    x[3, 5] = float("inf")
    rows = SUM_V7(x, 1)
    assert rows[1].isnan() and rows[3].isinf()
    assert rows[[0, 2, 4]].isfinite().all()
    columns = SUM_V7(x, 0)
    assert columns[17].isnan() and columns[5].isinf()
    assert columns.isfinite().sum() == 998


def expected_error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - any type torch raises is the expectation
        return type(error)
    raise AssertionError("torch.sum accepted the call")


ERROR_DEVICES = [*DEVICES, pytest.param("meta")]  # meta: the fake kernel's errors


@pytest.mark.parametrize("device", ERROR_DEVICES)
def test_dim_errors_match_torch(device):
    x = torch.ones(2, 3, 4, device=device)
    scalar = torch.ones((), device=device)
    for tensor, dim in [(x, [0, 0]), (x, (1, -2)), (x, 3), (x, -4), (scalar, 1), (scalar, [0, -1])]:
        error_type = expected_error(lambda t=tensor, d=dim: torch.sum(t, d))
        with pytest.raises(error_type, match=NAME):
            SUM_V7(tensor, dim)


@pytest.mark.parametrize("device", ERROR_DEVICES)
def test_unsupported_dtypes_are_clear_errors(device):
    x = torch.ones(4, 5, device=device)
    # torch.sum has no kernel for uint16 and says NotImplementedError; so do both overloads,
    # for the input's dtype and for the requested one, and for complex, which this op lacks.
    for call in [
        lambda: SUM_V7(x.to(torch.uint16), 0),
        lambda: SUM_V7(x.to(torch.uint16)),
        lambda: SUM_V7(x.to(torch.complex64), 1),
        lambda: SUM_V7(x.to(torch.complex64)),
    ]:
        with pytest.raises(NotImplementedError, match=rf"{NAME}: unsupported dtype"):
            call()
    for requested in (torch.uint16, torch.complex64):
        with pytest.raises(NotImplementedError, match=rf"{NAME}: unsupported requested dtype"):
            SUM_V7(x, 0, dtype=requested)
        with pytest.raises(NotImplementedError, match=rf"{NAME}: unsupported requested dtype"):
            SUM_V7(x, dtype=requested)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_empty_tensors(device, keepdim):
    for shape, dim in [((0, 3), 0), ((0, 3), 1), ((2, 0, 4), (0, 2)), ((2, 0, 4), 1), ((0,), None)]:
        for dtype in (torch.float32, torch.int32, torch.bool):
            x = torch.empty(shape, dtype=dtype, device=device)
            result = SUM_V7(x, dim, keepdim)
            assert_matches_torch(result, x, dim, keepdim, message=str(shape))
            assert (result == 0).all()  # a reduced dim of size 0 sums to zero


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32], ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_zero_dim_input(device, dtype, seed):
    x = random_tensor(1, dtype, device).reshape(())
    for dim in [0, -1, [0], None, []]:
        for keepdim in (False, True):
            assert_matches_torch(SUM_V7(x, dim, keepdim), x, dim, keepdim)


@pytest.mark.parametrize(("shape", "dim"), [((3, 10**6), 1), ((10**6, 3), 0), ((64, 1024, 64), 1)])
@pytest.mark.parametrize("device", DEVICES)
def test_bitwise_deterministic(device, shape, dim, seed):
    x = random_shaped(shape, torch.float32, device)
    first = SUM_V7(x, dim)
    for _ in range(3):
        assert torch.equal(SUM_V7(x, dim), first)
    if device == "cpu":
        threads = torch.get_num_threads()
        try:
            torch.set_num_threads(1)
            assert torch.equal(SUM_V7(x, dim), first), "the result depends on the thread count"
        finally:
            torch.set_num_threads(threads)


@pytest.mark.parametrize("device", DEVICES)
def test_convenience_wrapper(device, seed):
    x = random_shaped((6, 7, 8), torch.bfloat16, device)
    assert torch.equal(torch_reduce.sum(x, (0, 2), True), SUM_V7(x, (0, 2), True))
    assert torch.equal(torch_reduce.sum(x, dtype=torch.float32), SUM_V7(x, dtype=torch.float32))
    assert torch_reduce.sum(x, keepdim=True).shape == (1, 1, 1)
    assert torch_reduce.sum(x, -1).shape == (6, 7)
    for arguments in [{"dim": 0}, {"keepdim": True}, {"dtype": torch.float32}]:
        with pytest.raises(ValueError, match="version 7"):
            torch_reduce.sum(x, version=6, **arguments)


@pytest.mark.parametrize("device", DEVICES)
def test_opcheck(device, seed):
    x = random_shaped((17, 33, 9), torch.float32, device)
    dims_cases = [
        ((x, [-1], True), {}),
        ((x, (0, 2)), {"dtype": torch.float64}),
        ((x.transpose(0, 2), 1, False), {}),
        ((random_shaped((257, 5), torch.float64, device).requires_grad_(), [0]), {}),
        ((random_shaped((40, 30), torch.int32, device), None, True), {}),
        ((random_shaped((8, 8), torch.bfloat16, device).t(), []), {"dtype": torch.float32}),
    ]
    for args, kwargs in dims_cases:
        torch.library.opcheck(SUM_V7.dim_IntList, args, kwargs)
    full_cases = [
        ((x,), {"dtype": torch.float64}),
        ((random_shaped((64, 3), torch.float64, device).requires_grad_(),), {}),
        ((random_shaped((9, 7), torch.int32, device),), {"dtype": torch.int32}),
    ]
    for args, kwargs in full_cases:
        torch.library.opcheck(SUM_V7.default, args, kwargs)


@pytest.mark.parametrize("device", DEVICES)
def test_compile_fullgraph(device, seed):
    torch.compiler.reset()

    def pooled(x):
        return (
            SUM_V7(x * 2, (2, 3), True, dtype=torch.float32)
            + SUM_V7(x, dim=-1).sum(-1)[..., None, None].float()
        )

    compiled = torch.compile(pooled, fullgraph=True, backend="aot_eager", dynamic=True)
    for shape in [(2, 3, 8, 8), (4, 5, 7, 9)]:
        x = random_shaped(shape, torch.bfloat16, device)
        assert torch.equal(compiled(x), pooled(x)), shape


@pytest.mark.parametrize("device", DEVICES)
def test_export(device, seed):
    class Model(torch.nn.Module):
        def forward(self, x):
            return SUM_V7(x.relu(), [1], keepdim=True, dtype=torch.float64)

    x = random_shaped((16, 32, 8), torch.float32, device)
    program = torch.export.export(Model(), (x,))
    assert any(node.target == SUM_V7.dim_IntList for node in program.graph.nodes)
    fresh = random_shaped((16, 32, 8), torch.float32, device)
    assert_matches_torch(program.module()(fresh), fresh.relu(), [1], True, torch.float64)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("device", DEVICES)
def test_gradcheck(device, keepdim, seed):
    x = random_shaped((4, 3, 5), torch.float64, device).requires_grad_()
    for dim in [1, -1, (0, 2), None, []]:
        assert torch.autograd.gradcheck(lambda t, d=dim: SUM_V7(t, d, keepdim), (x,))


@pytest.mark.parametrize("device", DEVICES)
def test_gradient_is_in_the_input_dtype(device, seed):
    """dtype= changes the result's dtype, not the gradient's: as torch.sum's."""
    x = random_shaped((6, 10), torch.float32, device).requires_grad_()
    for call in [
        lambda t: SUM_V7(t, dtype=torch.float64),
        lambda t: SUM_V7(t, 1, dtype=torch.float64),
        lambda t: torch.sum(t, 1, dtype=torch.float64),
    ]:
        (grad,) = torch.autograd.grad(call(x), x, torch.ones_like(call(x)))
        assert grad.dtype == torch.float32 and torch.equal(grad, torch.ones_like(x))


@requires_cuda
@pytest.mark.parametrize(
    ("shape", "dim"), [((4096, 1000), -1), ((4096, 1000), 0), ((8, 6, 7, 9), (2, 3))]
)
def test_cuda_graph_replays_see_new_data(shape, dim, seed):
    static_input = random_shaped(shape, torch.float32, "cuda")
    SUM_V7(static_input, dim)  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = SUM_V7(static_input, dim)
    for _ in range(3):
        fresh = random_shaped(shape, torch.float32, "cuda")
        static_input.copy_(fresh)
        graph.replay()
        torch.cuda.synchronize()
        assert_matches_torch(static_output, fresh, dim, False, message=f"seed={seed}")
        assert torch.equal(static_output, SUM_V7(fresh, dim)), "graph and eager differ"


# Sums over outer dims (the column class): vector loads (aligned rows, and wide
# sums of rows off the vector boundaries) and a column a thread (off-boundary rows
# of a few bands or split into few blocks: 3000x129, 3001x66), one band of columns
# or many, split over the rows or not, and the channels_last H x W sum.
COLUMN_CASES = [
    ("2000x64 float32", (2000, 64), torch.float32, [0], lambda x: x),
    ("3000x520 float32", (3000, 520), torch.float32, [0], lambda x: x),
    ("3000x129 float32", (3000, 129), torch.float32, [0], lambda x: x),
    ("3001x66 float32, 1 element in", (3001, 66), torch.float32, [0], lambda x: x[1:, 1:65]),
    ("512x96x520 bfloat16", (512, 96, 520), torch.bfloat16, [0, 1], lambda x: x),
    (
        "4x256x9x9 bfloat16 channels_last",
        (4, 256, 9, 9),
        torch.bfloat16,
        [2, 3],
        lambda x: x.contiguous(memory_format=torch.channels_last),
    ),
    ("64x300x64 float64", (64, 300, 64), torch.float64, [1], lambda x: x),
    ("2000x136 int8", (2000, 136), torch.int8, [0], lambda x: x),
    ("6000x40 int32", (6000, 40), torch.int32, [0], lambda x: x),
    # The benchmark's small column sums: on Hopper and newer clusters of 8 splits
    # of narrowed bands (small_sum_bands; on a 132-SM GPU 16 column lanes for 1024
    # rows, 8 for 2048), else 32 splits of one round a thread.
    ("1024x1024 int32", (1024, 1024), torch.int32, [0], lambda x: x),
    # The same clusters for 8-byte elements (2 a vector: 2-lane bands of 4 columns)
    # and 1-byte ones (8-byte vectors: 4-lane bands, 32-byte spans).
    ("3001x64 float64", (3001, 64), torch.float64, [0], lambda x: x),
    ("2001x64 bool", (2001, 64), torch.bool, [0], lambda x: x),
    ("1024x1024 float32", (1024, 1024), torch.float32, [0], lambda x: x),
    ("2048x1024 int32", (2048, 1024), torch.int32, [0], lambda x: x),
    ("1536x1000 bfloat16", (1536, 1000), torch.bfloat16, [0], lambda x: x),
    ("64x1024x64 float32", (64, 1024, 64), torch.float32, [1], lambda x: x),
    # Up to 8 splits a band (the portable cluster size): a cluster a band on
    # Hopper and newer (32-byte, 64-byte and scalar pieces of column sums, a
    # partial last band).
    ("64x256x64 float32", (64, 256, 64), torch.float32, [1], lambda x: x),
    ("100x2048x64 float16", (100, 2048, 64), torch.float16, [1], lambda x: x),
    ("100x2048x64 int16", (100, 2048, 64), torch.int16, [1], lambda x: x),
    ("100x2048x63 float32, sliced", (100, 2048, 64), torch.float32, [1], lambda x: x[..., :63]),
    # Rows off the vector boundaries, read as the vectors from each row's boundary,
    # their sums moved into place: an odd vocabulary (a phase a row, many bands), a
    # first column sliced off (one phase), several outer indices of odd rows.
    ("300x50257 bfloat16", (300, 50257), torch.bfloat16, [0], lambda x: x),
    ("2048x4096 float32, from column 1", (2048, 4096), torch.float32, [0], lambda x: x[:, 1:]),
    ("3x2001x1001 float16", (3, 2001, 1001), torch.float16, [1], lambda x: x),
    # Many splits per band (several rounds of the finish's loads), and a band
    # one vector wide (256 split lanes over fewer splits).
    ("20000x256 float32", (20000, 256), torch.float32, [0], lambda x: x),
    ("20000x8 bfloat16", (20000, 8), torch.bfloat16, [0], lambda x: x),
    # A few columns whose rows lie back to back off the vector boundaries, read as
    # one run of vectors (interleaved_column_sum.cu): one span of many splits, spans
    # that start mid-vector, and more spans than a graph's counters (260 spans of 2
    # splits on a 132-SM GPU: a second launch under capture).
    ("1000000x3 float32", (10**6, 3), torch.float32, [0], lambda x: x),
    (
        "4x200001x5 bfloat16, spans off the vector boundary",
        (4, 200002, 5),
        torch.bfloat16,
        [1],
        lambda x: x[:, 1:],
    ),
    ("260x4000x3 float32", (260, 4000, 3), torch.float32, [1], lambda x: x),
    # 9 and 16 such columns in a block per 2 loads a thread (blocks of 4 would
    # fill under a quarter of a 132-SM GPU): 44 and 40 splits, which a second
    # launch adds, a warp a column.
    ("20001x9 float16", (20001, 9), torch.float16, [0], lambda x: x),
    ("20001x16 int8", (20001, 16), torch.int8, [0], lambda x: x),
    # 9 such columns of 22 splits in each of 2 spans, fewer than a warp: the
    # last block of each span (or a second launch) adds each column's partials
    # in a group of 16 lanes, all columns in one turn (reduce.cuh's
    # sum_partials); 24 columns of ~30 splits in each of 16 spans, lane groups
    # of 8.
    ("2x20001x9 float16", (2, 20001, 9), torch.float16, [1], lambda x: x),
    ("16x20001x24 int8", (16, 20001, 24), torch.int8, [1], lambda x: x),
    # 33 such columns in 64 spans of 8 splits each (fewer than a warp: the last
    # block of each span adds them a thread a column, or a second launch where
    # there are no counters).
    ("64x3001x33 float32", (64, 3001, 33), torch.float32, [1], lambda x: x),
    # 32 and 33 such columns of many splits each (a warp an output in a second
    # launch, on every stream alike; on GPUs before Hopper in the last block's
    # finish up to 32 columns): a span an element in, and 33 columns long enough
    # for the run of vectors past 32 columns.
    (
        "200001x32 float32, an element in",
        (200002, 32),
        torch.float32,
        [0],
        lambda x: x.view(-1)[1 : 1 + 200001 * 32].view(200001, 32),
    ),
    ("300001x33 float32", (300001, 33), torch.float32, [0], lambda x: x),
    (
        "100001x33 float64, an element in",
        (100002, 33),
        torch.float64,
        [0],
        lambda x: x.view(-1)[1 : 1 + 100001 * 33].view(100001, 33),
    ),
    # Per-channel sums of a channels_last RGB batch: N, H and W coalesce into one
    # reduced dim of stride 3.
    (
        "16x3x224x224 bfloat16 channels_last, (0,2,3)",
        (16, 3, 224, 224),
        torch.bfloat16,
        [0, 2, 3],
        lambda x: x.contiguous(memory_format=torch.channels_last),
    ),
]

# A few long contiguous rows, summed by the contiguous class a row at a time
# (layout.cpp's kMaxContiguousRows = 64, and up to a row an SM of 4 MB or
# more): each launch shape (one block, the mid shape, the one-wave shape split
# over the rows), rows that start misaligned, and one row more than the limit
# (the row class).
FEW_ROWS_CASES = [
    ("3x1000000 float32", (3, 10**6), torch.float32, [1], lambda x: x),
    ("3x1000000 float32, misaligned rows", (3, 10**6), torch.float32, [1], lambda x: x[:, 1:]),
    ("5x1000 bfloat16, one block a row", (5, 1000), torch.bfloat16, [1], lambda x: x),
    ("2x2**23 bfloat16, one wave", (2, 2**23), torch.bfloat16, [1], lambda x: x),
    ("64x70001 float32", (64, 70001), torch.float32, [1], lambda x: x),
    ("4x40001 float32, a cluster a row", (4, 40001), torch.float32, [1], lambda x: x),
    ("3x40001 float16, misaligned rows", (3, 40001), torch.float16, [1], lambda x: x[:, 1:]),
    ("65x70001 float32, the row class", (65, 70001), torch.float32, [1], lambda x: x),
    ("20x10000 float32, every other element", (20, 20000), torch.float32, [1], lambda x: x[:, ::2]),
    (
        "65x(2**20+1) float32, 4 MB misaligned rows",
        (65, 2**20 + 1),
        torch.float32,
        [1],
        lambda x: x[:, 1:],
    ),
    ("4x3x50000 int32", (4, 3, 50000), torch.int32, [2], lambda x: x),
    ("7x99999 float64", (7, 99999), torch.float64, [1], lambda x: x),
]


@requires_cuda
@pytest.mark.parametrize(
    ("shape", "dtype", "dim", "view"),
    [case[1:] for case in COLUMN_CASES + FEW_ROWS_CASES],
    ids=[case[0] for case in COLUMN_CASES + FEW_ROWS_CASES],
)
def test_split_sum_finish_paths_agree(shape, dtype, dim, view, seed):
    """Each way a split column sum, or a sum of a few long rows, finishes gives
    torch.sum's result, bit for bit the same: the last block of each band or row
    (PyTorch's streams), a second launch (external streams), and graph-owned
    counters (capture). Bands of vectors on the vector boundary finish in a second
    launch on every stream on Hopper and newer: there the streams' results agree
    all the same."""
    from raw_streams import external_stream

    x = view(random_shaped(shape, dtype, "cuda"))
    on_default = SUM_V7(x, dim)
    assert_matches_torch(on_default, x, dim, False, message=f"seed={seed}")
    with torch.cuda.stream(torch.cuda.Stream()):
        on_pool = SUM_V7(x, dim)
    with external_stream() as stream, torch.cuda.stream(stream):
        on_external = SUM_V7(x, dim)
        stream.synchronize()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = SUM_V7(x, dim)
    graph.replay()
    torch.cuda.synchronize()
    for name, result in (("pool", on_pool), ("external", on_external), ("graph", captured)):
        assert torch.equal(result, on_default), f"{name} stream differs from the default stream"


@requires_cuda
@pytest.mark.parametrize("rows", [1021, 1022, 1023, 1025, 1026, 1027])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32], ids=str)
@pytest.mark.parametrize(
    ("shape_of", "dim"),
    [
        (lambda rows: (64, rows, 64), [1]),
        (lambda rows: (20 * rows, 256), [0]),
        (lambda rows: (64, rows, 63), [1]),
    ],
    ids=["band in a cluster", "band through L2", "scalar columns"],
)
def test_column_sums_whose_rows_end_in_a_partial_round(shape_of, dim, dtype, rows, seed):
    """A thread's rows of a column sum end in a round of 1-3 loads (fewer than the 4
    of a full round), issued together: rows past the end load the last row again and
    add nothing. Row counts around 1024 give the threads of a band every tail length,
    where a band finishes in a cluster (64xRx64 dim=1: 7 or 8 splits of 16 row lanes),
    through partials in L2 (20R x 256 dim=0, many splits, past small_sum_bands'
    rounds), and in scalar columns (63)."""
    x = random_shaped(shape_of(rows), dtype, "cuda")
    assert_matches_torch(SUM_V7(x, dim), x, dim, False, message=f"seed={seed}")


def back_to_back_rows(spans, rows, columns, dtype, element_offset, row_offset):
    """Fresh random (spans, rows, columns) CUDA data whose rows lie back to back: each
    span `row_offset` rows into rows + 1 stored ones, the storage `element_offset`
    elements into its allocation."""
    storage = random_tensor(spans * (rows + 1) * columns + element_offset, dtype, "cuda")
    stored_rows = storage[element_offset:].view(spans, rows + 1, columns)
    return stored_rows[:, row_offset : row_offset + rows]


@requires_cuda
@pytest.mark.parametrize(
    ("element_offset", "row_offset"),
    [(0, 0), (0, 1), (1, 0)],
    ids=["aligned", "a row in", "an element in"],
)
@pytest.mark.parametrize(
    ("spans", "rows"), [(1, 3001), (1, 200_003), (5, 20_001), (600, 1001)], ids=str
)
@pytest.mark.parametrize(
    "dtype",
    [
        torch.float32,
        torch.float16,
        torch.bfloat16,
        torch.int32,
        torch.int64,
        torch.float64,
        torch.int16,
        torch.int8,
        torch.uint8,
        torch.bool,
    ],
    ids=str,
)
@pytest.mark.parametrize("columns", [2, 3, 5, 6, 7, 8, 9, 15, 17, 24, 25, 31, 32, 33])
def test_interleaved_column_sums(columns, dtype, spans, rows, element_offset, row_offset, seed):
    """Column sums of a few columns whose rows lie back to back, off the vector
    boundaries (interleaved_column_sum.cu): C not a multiple of a vector, or any C
    up to 32 from a span that starts an element in, or of 1- and 2-byte integers
    from a vector boundary; other multiples of a vector from a vector boundary,
    8-byte pairs from one, spans under 256 vectors (16-bit 600x1001x2), and 33
    columns but for long ones (the run past 32 columns:
    test_wider_and_integer_interleaved_column_sums) take the other kernels. One
    span or several (outer indices a row longer than their rows: a phase each
    where C is not a multiple of a vector), a scalar head or none, many splits a
    span, a few, or one (more spans than a wave of blocks). 1- and 2-byte
    integers' threads sum in int32, full-range elements here. From 4 columns, sums
    of every type that a column a thread reads in clusters in few rounds (the
    smaller sums here, on GPUs with clusters) take the band kernels. C a multiple
    of 8 (8, 24, 32) parks its positions element by element. A warp adds 1 to 4
    columns after the barrier: 17 and 25, the fewest columns that give a warp 3 or
    4, take a lane's reads of a column at their most (17: warp 0 three, the others
    two; 25: warp 0 four, the others three)."""
    x = back_to_back_rows(spans, rows, columns, dtype, element_offset, row_offset)
    assert_matches_torch(SUM_V7(x, [1]), x, [1], False, message=f"seed={seed}")


@requires_cuda
@pytest.mark.parametrize(
    ("element_offset", "row_offset"),
    [(0, 0), (0, 1), (1, 0)],
    ids=["aligned", "a row in", "an element in"],
)
@pytest.mark.parametrize(("spans", "rows"), [(1, 600_001), (3, 250_001)], ids=str)
@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64], ids=str
)
@pytest.mark.parametrize("columns", [33, 41, 47, 64])
def test_wide_interleaved_column_sums(
    columns, dtype, spans, rows, element_offset, row_offset, seed
):
    """Long column sums of 33-64 float columns whose rows lie back to back
    (interleaved_column_sum.cu past 32 columns, where each thread of a wave has 2.4
    (4- and 8-byte columns off the vector boundary) or 4.5 elements or more and the
    held partials allow 3/8 of a wave of splits: a few threads a column add its
    positions, a warp a column adds its splits in a second launch; 8-byte types up
    to 42 columns, off the vector boundary): one span or three, a scalar head or
    none. 47 and 64 8-byte columns, and rows on a vector boundary of 8-byte types or
    of three spans, take the band kernels."""
    x = back_to_back_rows(spans, rows, columns, dtype, element_offset, row_offset)
    assert_matches_torch(SUM_V7(x, [1]), x, [1], False, message=f"seed={seed}")


@requires_cuda
@pytest.mark.parametrize(
    ("element_offset", "row_offset"),
    [(0, 0), (0, 1), (3, 0)],
    ids=["aligned", "a row in", "3 elements in"],
)
@pytest.mark.parametrize(("spans", "rows"), [(1, 100_001), (3, 30_001)], ids=str)
@pytest.mark.parametrize(
    "dtype",
    [torch.float32, torch.bfloat16, torch.int32, torch.int64, torch.int16, torch.uint8, torch.bool],
    ids=str,
)
@pytest.mark.parametrize("columns", [33, 64, 65, 100, 127, 128])
def test_wider_and_integer_interleaved_column_sums(
    columns, dtype, spans, rows, element_offset, row_offset, seed
):
    """Long column sums of 65-128 columns whose rows lie back to back, and of
    integers from 33 (interleaved_column_sum.cu past 32 columns, since session 91):
    past 64 columns two threads add a column's positions, 1- and 2-byte integers
    sum theirs in int32, a scalar head of up to 15 elements and a tail; one span or
    three. 8-byte columns past 64, and the sums the rule leaves (three spans where
    the held partials allow under 3/8 of a wave of splits), take the band kernels."""
    x = back_to_back_rows(spans, rows, columns, dtype, element_offset, row_offset)
    assert_matches_torch(SUM_V7(x, [1]), x, [1], False, message=f"seed={seed}")


@requires_cuda
@pytest.mark.parametrize(
    ("element_offset", "gap"),
    [(0, 0), (1, 0), (3, 1), (0, 7)],
    ids=["aligned start", "an element in", "3 in, gaps of 1", "gaps of 7"],
)
@pytest.mark.parametrize(("rows", "outer"), [(5, 1), (3001, 1), (1000, 3), (500, 64)], ids=str)
@pytest.mark.parametrize("dtype", [*DTYPES, torch.int16, torch.int8], ids=str)
@pytest.mark.parametrize("columns", [4, 5, 17, 63, 260, 1001])
def test_off_boundary_column_sums(columns, dtype, rows, outer, element_offset, gap, seed):
    """Column sums whose rows start off the vector boundaries, over one reduced dim:
    C not a multiple of a vector, rows that start an element or three in, gaps
    between rows (a phase a row where the row stride is not a multiple of a
    vector), bands of a few lanes (several row lanes a warp) to many bands, one
    split or many, several outer indices. Vectors from each row's boundary
    (column_sum.cu's OffBoundaryBandRows) where they fill enough of a wave of
    blocks (many outer indices, long columns), a column a thread elsewhere. Reads
    past the view's span would go unseen here (they land in columns never stored):
    the sanitizer target's views end at their allocation's last byte."""
    stride = columns + gap
    numel = outer * rows * stride
    storage = random_tensor(numel + element_offset, dtype, "cuda")
    x = storage[element_offset:].view(outer, rows, stride)[..., :columns]
    assert_matches_torch(SUM_V7(x, [1]), x, [1], False, message=f"seed={seed}")
    assert_matches_torch(SUM_V7(x[0], [0]), x[0], [0], False, message=f"seed={seed}")


@requires_cuda
@pytest.mark.parametrize("element_offset", [0, 1, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int16, torch.int8], ids=str)
def test_off_boundary_column_sums_over_two_outer_dims(dtype, element_offset, seed):
    """Column sums off the vector boundaries whose two outer dims do not coalesce
    (every other index of the first): column_sum.cu's off-boundary band kernels
    compiled with the general index (the flat ones take one outer dim at most),
    each thread's rows of one phase whatever the outer offset."""
    shape = (4, 3, 512, 1001)
    storage = random_tensor(math.prod(shape) + element_offset, dtype, "cuda")
    x = storage[element_offset:].view(shape)[::2]
    assert_matches_torch(SUM_V7(x, [2]), x, [2], False, message=f"seed={seed}")


# Dense rows (row_sum.cu's dense_row_kernel and its aligned twin), in rows per
# multiprocessor. The warp-a-row kernel holds 8 or 9 blocks of 4 warps a
# multiprocessor (55-63 registers), so 64 rows of under 256 vectors take a warp a
# row, and so do rows shorter than a 64-thread round from a wave of 256-thread
# blocks (4 float32 rows, 6 bfloat16); rows of a 64-thread round or more, 4-31 an
# SM, a block a row; from 1 row of a 256-thread round or more up to that wave a
# 256-thread block a row too (8 loads a thread for 1-3 rows of 2 rounds or more),
# from half a row of a 512-thread round or more a 512-thread block of 4 loads a row
# (fractions of a row an SM mean 65 rows at least, above the contiguous class's
# 64), and 2 rows of 750 vectors the general split kernel; odd lengths, sliced
# starts (a scalar head), rows shorter than a vector, rows of whole vectors at a
# stride of whole vectors (the aligned twin) or not, and 8-byte accumulators.
DENSE_ROW_CASES = [
    ("warp a row, float32, odd length", 64, 1001, torch.float32, lambda x: x),
    ("128-thread block a row, bfloat16, sliced", 64, 4099, torch.bfloat16, lambda x: x[:, 3:]),
    ("warp a row, float32, 4 elements misaligned", 64, 5, torch.float32, lambda x: x[:, 1:]),
    ("warp a row, uint8", 64, 515, torch.uint8, lambda x: x),
    ("warp a row, float64", 64, 300, torch.float64, lambda x: x),
    ("block a row, float32, long rows", 16, 9001, torch.float32, lambda x: x),
    ("block a row, int32, sliced", 20, 3001, torch.int32, lambda x: x[:, 1:-1]),
    ("block a row, float16, to float32", 24, 2500, torch.float16, lambda x: x),
    ("block a row, whole vectors at a stride", 16, 4100, torch.float32, lambda x: x[:, :4096]),
    ("block a row, whole vectors off the stride", 16, 4098, torch.float32, lambda x: x[:, :4096]),
    ("64-thread block a row, bfloat16, sliced", 64, 2051, torch.bfloat16, lambda x: x[:, 3:]),
    ("64-thread block a row, int32", 20, 1024, torch.int32, lambda x: x),
    ("512-thread block a row, float32", 4, 17000, torch.float32, lambda x: x),
    ("512-thread block a row, float16, sliced", 8, 32770, torch.float16, lambda x: x[:, 1:-1]),
    ("warp a row from a wave of 256-thread blocks", 16, 1000, torch.float32, lambda x: x),
    ("256 threads of 8 loads, bfloat16, sliced", 2, 16400, torch.bfloat16, lambda x: x[:, 3:]),
    ("block a row short of a wave, float32", 1, 16385, torch.float32, lambda x: x),
    ("block a row short of a wave, bfloat16, sliced", 3, 8200, torch.bfloat16, lambda x: x[:, 1:]),
    (
        "512-thread block a row from half a row an SM, float32",
        0.5,
        32771,
        torch.float32,
        lambda x: x,
    ),
    (
        "512-thread block a row from half a row an SM, bfloat16, sliced",
        0.5,
        16390,
        torch.bfloat16,
        lambda x: x[:, 2:],
    ),
    ("the split kernel below", 2, 3000, torch.float32, lambda x: x),
]


@requires_cuda
@pytest.mark.parametrize(
    ("rows_per_sm", "length", "dtype", "view"),
    [case[1:] for case in DENSE_ROW_CASES],
    ids=[case[0] for case in DENSE_ROW_CASES],
)
def test_dense_rows(rows_per_sm, length, dtype, view, seed):
    """torch.sum's result over the last dim, the same bits call after call."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = math.ceil(rows_per_sm * sms)
    if rows_per_sm < 1:
        rows = max(rows, 65)  # above the contiguous class's 64 long rows
    x = view(random_shaped((rows, length), dtype, "cuda"))
    requested = torch.float32 if dtype == torch.float16 else None
    result = SUM_V7(x, [-1], dtype=requested)
    assert_matches_torch(result, x, [-1], False, requested, message=f"seed={seed}")
    assert torch.equal(SUM_V7(x, [-1], dtype=requested), result)


@pytest.mark.large
@requires_cuda
def test_reduced_rows_of_more_than_2_31_elements(seed):
    """int8 sums are exact, so any indexing slip past 2**31 shows as a wrong number:
    two columns, the same as strided rows, and one contiguous row, each longer than 2**31."""
    length = 2**31 + 7
    skip_unless_free(2 * length + 2**30)
    x = torch.randint(-128, 128, (length, 2), dtype=torch.int8, device="cuda")
    expected = sum(chunk.sum(0, dtype=torch.int64) for chunk in x.split(2**28))
    assert torch.equal(SUM_V7(x, 0), expected)
    assert torch.equal(SUM_V7(x.t(), 1), expected)
    row = x.view(1, -1)[:, :length]
    assert SUM_V7(row, -1).item() == exact_gpu_sum(row)


@pytest.mark.large
@requires_cuda
def test_more_than_2_31_elements_along_kept_dims(seed):
    """More than 2**31 outputs (and input elements), and a large input with a short
    reduced dim: the output and kept-dim indexing must be 64-bit."""
    outputs = 2**31 + 3
    skip_unless_free(2 * outputs + 2 * outputs + 2**30)
    x = torch.randint(-128, 128, (outputs, 2), dtype=torch.int8, device="cuda")
    result = SUM_V7(x, 1, dtype=torch.int8)  # one byte per output: wraps like torch's
    assert torch.equal(result, torch.sum(x, 1, dtype=torch.int8))
    del result
    columns = x.t()  # (2, outputs): reduce the outer dim
    assert torch.equal(
        SUM_V7(columns, 0, dtype=torch.int8), torch.sum(columns, 0, dtype=torch.int8)
    )
