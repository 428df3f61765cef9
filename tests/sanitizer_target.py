"""Every version on small inputs, for compute-sanitizer; tests/test_sanitizers.py
runs it under memcheck, initcheck, racecheck and synccheck:

    PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck \\
        --error-exitcode 1 --report-api-errors no python tests/sanitizer_target.py --part eager

Parts:
  eager  every version on odd sizes (a partial last tile, one block, several
         passes), misaligned views that end where their allocation ends, and
         transposed, sliced, permuted, expanded and channels-last layouts, in
         several dtypes; on the default, a pool and an external stream; sum_v7's
         large kernel with a partial last chunk, its dims overload and dtype
         argument when they are registered. Run it with
         PYTORCH_NO_CUDA_MEMORY_CACHING=1: every tensor is then its own
         allocation, so memcheck and initcheck see its exact bounds.
  graph  every version captured in a CUDA graph and replayed on new data (the
         capture path of sum_v7); a capture needs the caching allocator.
  many-waves
         sum_v7's one-row sums past 16x L2 (about 1 GB each): a block per
         chunk over many waves (per 2 where memory is fast for a
         multiprocessor, as an H200's, or where one cluster cannot hold the
         totals, not at these sizes), then a second launch over the
         block totals in the call's scratch memory. Run it with
         PYTORCH_NO_CUDA_MEMORY_CACHING=1, as the eager part.
  all    all three, under the caching allocator.

Inputs are made on the CPU and copied over, and references are computed on the
CPU, so that no PyTorch reduction kernel runs on the GPU and every result is
checked: an error the sanitizer does not see fails the run too.
"""

import argparse
import math

import torch
from raw_streams import external_stream

import torch_reduce
from torch_reduce.testing import sum_error_bound

VERSIONS = [version.number for version in torch_reduce.VERSIONS]
SUM_V7 = torch.ops.reduce_opt.sum_v7
HAS_DIMS_OVERLOAD = hasattr(SUM_V7, "dim_IntList")
HAS_DTYPE_ARGUMENT = any(argument.name == "dtype" for argument in SUM_V7.default._schema.arguments)


def cpu_data(numel: int, dtype: torch.dtype) -> torch.Tensor:
    if dtype.is_floating_point:
        return torch.randn(numel).to(dtype)
    if dtype == torch.bool:
        return torch.rand(numel) < 0.5
    return torch.randint(-100, 100, (numel,)).to(dtype)


def on_gpu_ending_at_allocation_end(numel: int, dtype: torch.dtype, offset: int) -> torch.Tensor:
    """``numel`` elements starting ``offset`` elements into their allocation and
    ending at its last byte: a read past the end is outside the allocation."""
    return cpu_data(numel + offset, dtype).cuda()[offset:]


def shaped_ending_at_allocation_end(
    shape: tuple[int, ...], dtype: torch.dtype, offset: int
) -> torch.Tensor:
    """on_gpu_ending_at_allocation_end's elements, viewed as ``shape``."""
    return on_gpu_ending_at_allocation_end(math.prod(shape), dtype, offset).view(shape)


def cpu_sum(x: torch.Tensor, dim: list[int] | None, keepdim: bool) -> torch.Tensor:
    """torch.sum on the CPU; ``dim=None`` sums everything (kept as size-1 dims with keepdim)."""
    if dim is None and not keepdim:
        return x.sum()
    return x.sum(dim if dim is not None else list(range(x.dim())), keepdim=keepdim)


def check(result: torch.Tensor, x: torch.Tensor, what: str, dim=None, keepdim=False) -> None:
    """``result`` is the sum of ``x`` over ``dim``: exact for integers; for floats
    within the error bound of the tests (tests/conftest.py), taken at the largest
    output, which bounds every output's error."""
    x = x.cpu()
    got = result.cpu()
    if not x.dtype.is_floating_point:
        expected = cpu_sum(x.long(), dim, keepdim)
        assert got.shape == expected.shape, f"{what}: shape {tuple(got.shape)}"
        assert torch.equal(got.long(), expected), f"{what}: {got} != {expected}"
        return
    expected = cpu_sum(x.double(), dim, keepdim)
    assert got.shape == expected.shape, f"{what}: shape {tuple(got.shape)}"
    abs_sum = cpu_sum(x.double().abs(), dim, keepdim)
    bound = sum_error_bound(
        x.dtype,
        x.numel() // max(expected.numel(), 1),
        abs_sum.max().item(),
        expected.abs().max().item(),
        torch_error=0.0,
    )
    error = (got.double() - expected).abs().max().item()
    assert error <= bound, f"{what}: off by {error} > {bound}"


def eager_inputs() -> dict[str, torch.Tensor]:
    grid = shaped_ending_at_allocation_end((37, 129), torch.float32, 0)
    cube = shaped_ending_at_allocation_end((5, 7, 33), torch.bfloat16, 0)
    image = shaped_ending_at_allocation_end((2, 3, 5, 7), torch.float16, 0)
    sms = torch.cuda.get_device_properties(grid.device).multi_processor_count

    def row_slice(rows: int, cols: int, dtype: torch.dtype) -> torch.Tensor:
        """Every other row, less its first element, of a (2 * rows) x cols matrix: rows
        one stride apart, off a vector boundary, the last one ending the allocation."""
        matrix = shaped_ending_at_allocation_end((2 * rows, cols), dtype, 0)
        return matrix[1::2, 1:]

    return {
        "1 float32": on_gpu_ending_at_allocation_end(1, torch.float32, 0),
        "255 float32": on_gpu_ending_at_allocation_end(255, torch.float32, 0),
        "257 int32": on_gpu_ending_at_allocation_end(257, torch.int32, 0),
        "2049 float64": on_gpu_ending_at_allocation_end(2049, torch.float64, 0),
        "70001 float32": on_gpu_ending_at_allocation_end(70_001, torch.float32, 0),
        "70001 float32, 1 element in": on_gpu_ending_at_allocation_end(70_001, torch.float32, 1),
        "70001 float16, 1 element in": on_gpu_ending_at_allocation_end(70_001, torch.float16, 1),
        "4099 bfloat16, 3 elements in": on_gpu_ending_at_allocation_end(4099, torch.bfloat16, 3),
        "4099 uint8, 5 elements in": on_gpu_ending_at_allocation_end(4099, torch.uint8, 5),
        "333 bool": on_gpu_ending_at_allocation_end(333, torch.bool, 0),
        "262147 float32": on_gpu_ending_at_allocation_end(262_147, torch.float32, 0),
        # The same grid with int64 totals in packed mailboxes: one word a block.
        "262147 int32, 3 elements in": on_gpu_ending_at_allocation_end(262_147, torch.int32, 3),
        # The same bytes in 8-byte totals of 8-byte elements: two mailbox words a block.
        "131075 float64, 1 element in": on_gpu_ending_at_allocation_end(131_075, torch.float64, 1),
        # 16-bit chunks of 2 loads while they leave multiprocessors idle (65 blocks on
        # an H100): the launch counts 65,537 vectors, the head's 7 elements and the
        # tail's 2 take two of them, and the last block has no vector of its own.
        "524289 bfloat16, 1 element in": on_gpu_ending_at_allocation_end(
            524_289, torch.bfloat16, 1
        ),
        # A few mid-size chunks: one cluster on Hopper and newer (4-byte and 8-byte totals).
        "40001 float32, 1 element in": on_gpu_ending_at_allocation_end(40_001, torch.float32, 1),
        "20001 int32, 3 elements in": on_gpu_ending_at_allocation_end(20_001, torch.int32, 3),
        "12289 float64": on_gpu_ending_at_allocation_end(12_289, torch.float64, 0),
        # Chunks of 2,048 vectors where the launch counts one vector past a whole
        # number of chunks and the misaligned row has two fewer: the last block
        # has no vector of its own (a cluster of 9 blocks; 21 blocks and mailboxes).
        "65537 float32, 1 element in": on_gpu_ending_at_allocation_end(65_537, torch.float32, 1),
        "163841 float32, 1 element in": on_gpu_ending_at_allocation_end(163_841, torch.float32, 1),
        "37x129 float32 transposed": grid.t(),
        "37x129 float32 sliced": grid[1:, ::3],
        "5x7x33 bfloat16 permuted": cube.permute(2, 0, 1),
        "129 float32 expanded to 3x129": grid[0, :].expand(3, 129),
        "2x3x5x7 float16 channels-last": image.contiguous(memory_format=torch.channels_last),
        # Full sums of row slices with 4-byte and 8-byte totals: a warp a row (64 rows
        # a multiprocessor, 8 blocks of 4 warps each: fp32's one-word totals fill the
        # mailboxes exactly, int32's two-word ones outnumber them and finish through
        # partials and the ticket), a block a row (16; 4 blocks a multiprocessor,
        # through mailboxes). One-word totals take their mailbox ticket early.
        "row slice float32, a warp a row": row_slice(64 * sms, 34, torch.float32),
        "row slice int32, a warp a row": row_slice(64 * sms, 34, torch.int32),
        "row slice bfloat16, a block a row": row_slice(16 * sms, 302, torch.bfloat16),
        "row slice int32, a block a row": row_slice(16 * sms, 70, torch.int32),
    }


def run_eager_part() -> None:
    inputs = eager_inputs()
    for version in VERSIONS:
        for name, x in inputs.items():
            check(torch_reduce.sum(x, version=version), x, f"sum_v{version}, {name}")
    # The per-stream state of each kind of stream.
    x = inputs["70001 float16, 1 element in"]
    with external_stream() as external:
        for stream_name, stream in (("pool", torch.cuda.Stream()), ("external", external)):
            with torch.cuda.stream(stream):
                results = {version: torch_reduce.sum(x, version=version) for version in VERSIONS}
            stream.synchronize()
            for version, result in results.items():
                check(result, x, f"sum_v{version} on a {stream_name} stream")
        # A row slice's full sum without a counter: finished by a second launch.
        row_slice = inputs["row slice bfloat16, a block a row"]
        with torch.cuda.stream(external):
            result = SUM_V7(row_slice)
        external.synchronize()
        check(result, row_slice, "sum_v7 of a row slice on an external stream")
    check_large_partial_chunk()
    if HAS_DTYPE_ARGUMENT:
        x = inputs["4099 bfloat16, 3 elements in"]
        result = SUM_V7(x, dtype=torch.float32)
        assert result.dtype == torch.float32, f"sum_v7 dtype=float32 gave {result.dtype}"
        check(result, x, "sum_v7 dtype=float32")
    if HAS_DIMS_OVERLOAD:
        run_dims_cases(inputs)


def check_large_partial_chunk() -> None:
    """sum_v7 only (the others read it as any long input): a float32 sum past
    one wave of mid chunks (512 threads of 4 vectors a chunk), which the large
    kernel's wave of blocks takes in turn, with a partial last chunk of 5
    vectors that its last block reads and 2 tail elements ending the
    allocation, starting 1 element in."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    wave = props.max_threads_per_multi_processor // 512 * props.multi_processor_count
    numel = wave * 512 * 4 * 4 + 3 + 5 * 4 + 2
    x = on_gpu_ending_at_allocation_end(numel, torch.float32, 1)
    check(SUM_V7(x), x, "sum_v7, a large sum with a partial last chunk, 1 element in")


def run_dims_cases(inputs: dict[str, torch.Tensor]) -> None:
    block = shaped_ending_at_allocation_end((6, 37, 129), torch.float32, 1)
    sms = torch.cuda.get_device_properties(block.device).multi_processor_count
    tensors = {
        "6x37x129 float32, 1 element in": block,
        "6x37x129 float32 transposed": block.transpose(0, 2),
        "6x37x129 float32 sliced": block[:, 1:, ::2],
        "5x7x33 bfloat16 permuted": inputs["5x7x33 bfloat16 permuted"],
        "37x129 float32 transposed": inputs["37x129 float32 transposed"],
        "257 int32": inputs["257 int32"],
        # Column sums split over rows: vector loads (clusters of narrow bands for a
        # small sum; splits through L2 past its rounds, rows apart by more than their
        # columns, which the interleaved run would read back to back), then scalar ones.
        "2000x64 float32": shaped_ending_at_allocation_end((2000, 64), torch.float32, 0),
        "20000x72 float32, rows 76 apart": shaped_ending_at_allocation_end(
            (20000, 76), torch.float32, 0
        )[:, :72],
        # Narrow bands on the vector boundary split through L2, to the allocation's last
        # element: on Hopper and newer a second launch (column_partials_kernel) adds
        # the splits, started before the read ends and waiting for it.
        "20001x32 float32": shaped_ending_at_allocation_end((20001, 32), torch.float32, 0),
        # 33-128 columns of one span on the vector boundary: the interleaved run of
        # vectors past 32 columns, as 70001x33 below, from a vector boundary.
        "20000x64 float32": shaped_ending_at_allocation_end((20000, 64), torch.float32, 0),
        "300x40x136 bfloat16": shaped_ending_at_allocation_end((300, 40, 136), torch.bfloat16, 0),
        "2000x66 float32, 1 element in": shaped_ending_at_allocation_end(
            (2000, 66), torch.float32, 1
        ),
        # Rows off the vector boundaries read as vectors from each row's boundary, their
        # sums moved into place, to the allocation's last element: a phase a row over
        # 16 bands, and int16 in narrow bands (several row lanes a warp) of 64 outer
        # indices, rows apart by more than their columns (back to back, the
        # interleaved run reads them: 4 splits a span); and a column a thread, for a
        # few bands of few rows.
        "1024x4095 bfloat16, 3 elements in": shaped_ending_at_allocation_end(
            (1024, 4095), torch.bfloat16, 3
        ),
        "64x2001x33 int16, rows 34 apart": shaped_ending_at_allocation_end(
            (64, 2001, 34), torch.int16, 0
        )[..., :33],
        "64x2001x33 int16": shaped_ending_at_allocation_end((64, 2001, 33), torch.int16, 0),
        # A column a thread in small clusters, to the allocation's last element: int32
        # and int8 rows of 16 loads, a last round's missing rows adding zeros (4 lanes a
        # band), and int64 rows of 8 loads.
        "8001x33 int32": shaped_ending_at_allocation_end((8001, 33), torch.int32, 0),
        "2001x33 int8": shaped_ending_at_allocation_end((2001, 33), torch.int8, 0),
        "2001x33 int64": shaped_ending_at_allocation_end((2001, 33), torch.int64, 0),
        # A column a thread through L2 in bands of 4 lanes (the widest would leave 31 of
        # 64 lanes idle), a wave's splits finished by each band's last block.
        "70001x33 int8": shaped_ending_at_allocation_end((70001, 33), torch.int8, 0),
        # The same vectors of 8-, 4- and 1-byte elements (8-byte vectors of 1-byte
        # ones): ending half a vector past a boundary, and on one.
        "1024x2049 float64, 1 element in": shaped_ending_at_allocation_end(
            (1024, 2049), torch.float64, 1
        ),
        "1024x4093 float32, 2 elements in": shaped_ending_at_allocation_end(
            (1024, 4093), torch.float32, 2
        ),
        "1024x4095 bool": shaped_ending_at_allocation_end((1024, 4095), torch.bool, 0),
        "300x1001 bfloat16, 3 elements in": shaped_ending_at_allocation_end(
            (300, 1001), torch.bfloat16, 3
        ),
        # Two outer dims that do not coalesce (the general index's band kernels),
        # over dim 2: clusters of bands narrowed to 16 lanes, a partial last band.
        "4x3x300x1001 bfloat16 [1::2], 3 elements in": shaped_ending_at_allocation_end(
            (4, 3, 300, 1001), torch.bfloat16, 3
        )[1::2],
        # A few interleaved columns read as one run of vectors, from a scalar head to
        # the allocation's last element: one span of many splits, and three spans.
        "40000x5 bfloat16, 1 element in": shaped_ending_at_allocation_end(
            (40000, 5), torch.bfloat16, 1
        ),
        "3x2001x3 float32, 1 element in": shaped_ending_at_allocation_end(
            (3, 2001, 3), torch.float32, 1
        ),
        # The shortest span the run reads: 255 vectors after a head of 3, one block
        # whose last thread starts past the span and past the stride (it loads the
        # span's last vector and adds nothing).
        "342x3 float32, 1 element in": shaped_ending_at_allocation_end((342, 3), torch.float32, 1),
        # 31 1-byte columns, whose threads sum 16 positions in int32, from a scalar
        # head of 14 to a tail of 1; on Hopper and newer a second launch adds the
        # splits, a warp a column.
        "70001x31 int8, 2 elements in": shaped_ending_at_allocation_end((70001, 31), torch.int8, 2),
        # 31 fp64 columns in one round of 8 loads a thread (228 blocks of 2 an SM on a
        # 132-SM GPU), from a scalar head of 1 to the allocation's last element; a
        # second launch adds the splits, a warp a column.
        "30001x31 float64, 1 element in": shaped_ending_at_allocation_end(
            (30001, 31), torch.float64, 1
        ),
        # Rounds of 5 loads (3, where 4 loads would take 4) in 272 blocks, the held
        # partials' cap on a 132-SM GPU, the last round partial, to the allocation's
        # last element.
        "60001x31 float64, 1 element in": shaped_ending_at_allocation_end(
            (60001, 31), torch.float64, 1
        ),
        # Past 5 rounds of 4 loads, half a wave of 8-load blocks (264 on a 132-SM GPU)
        # in pipelined rounds, the last of them partial, to the allocation's last element.
        "100001x31 float64, 1 element in": shaped_ending_at_allocation_end(
            (100001, 31), torch.float64, 1
        ),
        # 16 such columns on the vector boundary in blocks of 2 loads a thread (those of
        # 4 would fill under a quarter of a 132-SM GPU), 40 splits that a second launch
        # adds, a warp a column.
        "20001x16 int8": shaped_ending_at_allocation_end((20001, 16), torch.int8, 0),
        # 9 fp16 columns in 2 spans (over dim 1) of 22 splits: the last block of each
        # adds each column's partials in a group of 16 lanes (sum_partials).
        "2x20001x9 float16": shaped_ending_at_allocation_end((2, 20001, 9), torch.float16, 0),
        # 33 interleaved columns, long enough for the run of vectors past 32 columns
        # (a round of loads a thread of a wave on a 132-SM GPU: 1.2M vectors against
        # 541k): threads a column, and 256 splits a column that a second launch adds,
        # a warp a column (warp_an_output_kernel, which on Hopper and newer starts
        # before the read ends and waits for it).
        "70001x33 float64, 1 element in": shaped_ending_at_allocation_end(
            (70001, 33), torch.float64, 1
        ),
        # Past 64 columns, 2 threads add a column's parked positions: 127 bf16 columns
        # from a scalar head of 7 (133 splits of 8 loads on a 132-SM GPU); and 100
        # 1-byte integer ones, whose positions sum in int32 (84 splits, the held
        # partials' cap).
        "20001x127 bfloat16, 1 element in": shaped_ending_at_allocation_end(
            (20001, 127), torch.bfloat16, 1
        ),
        "70001x100 int8, 3 elements in": shaped_ending_at_allocation_end(
            (70001, 100), torch.int8, 3
        ),
        # A column sum of 3 splits a band: a cluster a band on Hopper and newer.
        "60x200x64 float32": shaped_ending_at_allocation_end((60, 200, 64), torch.float32, 0),
        # A few long rows over dim -1: a contiguous sum a row, split over blocks.
        "3x70001 float32, 1 element in": shaped_ending_at_allocation_end(
            (3, 70001), torch.float32, 1
        ),
        # Rows whose last chunk holds no vector of their own (heads of 3, 2 and 1
        # element; 9 chunks a row, a cluster a row on an H100).
        "3x65537 float32, 1 element in": shaped_ending_at_allocation_end(
            (3, 65537), torch.float32, 1
        ),
        # A few rows of a few chunks: a cluster a row on Hopper and newer.
        "3x40001 float16": shaped_ending_at_allocation_end((3, 40001), torch.float16, 0),
        # Dense rows over dim -1, starting off a vector boundary: a warp a row (64 rows a
        # multiprocessor, and 16 rows shorter than a 64-thread round, a wave of
        # 256-thread blocks of them), a 128-thread block a row (10 rows of a 128-thread
        # round a multiprocessor), a 512-thread block a row (4 rows of 4 rounds), a
        # 256-thread block a row short of a wave (a row of a round or more an SM; 8 loads
        # a thread at 1-3 rows an SM of 2 rounds or more), and a 512-thread block of 4
        # loads a row (half a row an SM of a round of that block or more, where 65 rows
        # are fewer than the SMs). Rows of one round of whole vectors from a 16-byte
        # boundary, in the aligned twin: a 64-thread block a row (20 rows of a 64-thread
        # round a multiprocessor), a 256-thread block a row (8 rows of a 64-thread
        # round a multiprocessor, too few for a wave of 64-thread blocks), and a
        # 512-thread block of 2 loads a row (8 rows of exactly a 256-thread round a
        # multiprocessor).
        "dense rows, a warp a row": shaped_ending_at_allocation_end(
            (64 * sms, 33), torch.float32, 1
        ),
        "dense rows, a warp a row from a wave of 256-thread blocks": (
            shaped_ending_at_allocation_end((16 * sms, 301), torch.bfloat16, 1)
        ),
        "dense rows, a 128-thread block a row": shaped_ending_at_allocation_end(
            (10 * sms, 2049), torch.float32, 1
        ),
        "dense rows, a 512-thread block a row": shaped_ending_at_allocation_end(
            (4 * sms, 16385), torch.float32, 1
        ),
        "dense rows short of a wave, a 256-thread block a row": shaped_ending_at_allocation_end(
            (max(sms, 65), 4097), torch.float32, 1
        ),
        "dense rows short of a wave, a 256-thread block of 8 loads a row": (
            shaped_ending_at_allocation_end((max(sms, 65), 8193), torch.float32, 1)
        ),
        "dense rows from half a row an SM, a 512-thread block a row": (
            shaped_ending_at_allocation_end((max((sms + 1) // 2, 65), 8197), torch.float32, 1)
        ),
        "dense rows of whole vectors, a 64-thread block a row": shaped_ending_at_allocation_end(
            (20 * sms, 1024), torch.float32, 0
        ),
        "dense rows of whole vectors, a 256-thread block a row": shaped_ending_at_allocation_end(
            (8 * sms, 1024), torch.float32, 0
        ),
        "dense rows of exactly a 256-thread round, a 512-thread block a row": (
            shaped_ending_at_allocation_end((8 * sms, 4096), torch.float32, 0)
        ),
        # A small column sum in clusters of 8 splits, its bands narrowed to a block an
        # SM (an H100 or H200).
        "1024x1024 int32": shaped_ending_at_allocation_end((1024, 1024), torch.int32, 0),
        # A column sum whose clusters of 8 splits overfill a wave (an H100): 7 splits
        # a band in clusters, each thread's rows ending in a partial round of loads.
        "64x1021x64 float32": shaped_ending_at_allocation_end((64, 1021, 64), torch.float32, 0),
    }
    for name, x in tensors.items():
        dim_lists = (
            [[-1], [0], []]
            + ([[0, -1]] if x.dim() > 1 else [])
            + ([[1]] if x.dim() > 2 else [])
            + ([[2]] if x.dim() > 3 else [])
        )
        for dims in dim_lists:
            for keepdim in (False, True):
                what = f"sum_v7 dims={dims} keepdim={keepdim}, {name}"
                result = SUM_V7.dim_IntList(x, dims, keepdim)
                check(result, x, what, dim=dims or None, keepdim=keepdim)
    # A split column sum through L2 on an external stream finishes in a second launch.
    with external_stream() as stream, torch.cuda.stream(stream):
        x = tensors["20000x72 float32, rows 76 apart"]
        result = SUM_V7.dim_IntList(x, [0])
        stream.synchronize()
        check(result, x, "sum_v7 dims=[0] on an external stream", dim=[0])
        x = tensors["3x70001 float32, 1 element in"]
        result = SUM_V7.dim_IntList(x, [1])
        stream.synchronize()
        check(result, x, "sum_v7 dims=[1] of a few rows on an external stream", dim=[1])
        x = tensors["1024x4095 bfloat16, 3 elements in"]
        result = SUM_V7.dim_IntList(x, [0])
        stream.synchronize()
        check(result, x, "sum_v7 dims=[0] off the boundaries on an external stream", dim=[0])


def run_graph_part() -> None:
    static_inputs = {
        "70001 float32": on_gpu_ending_at_allocation_end(70_001, torch.float32, 0),
        "70001 float16, 1 element in": on_gpu_ending_at_allocation_end(70_001, torch.float16, 1),
    }
    for name, static_input in static_inputs.items():
        for version in VERSIONS:
            torch_reduce.sum(static_input, version=version)  # warm up outside the capture
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_output = torch_reduce.sum(static_input, version=version)
            for replay in range(2):
                fresh = cpu_data(static_input.numel(), static_input.dtype)
                static_input.copy_(fresh)
                graph.replay()
                torch.cuda.synchronize()
                check(static_output, fresh, f"sum_v{version} graph replay {replay}, {name}")
    # A row slice's full sum (a block a row) on the graph's own counters.
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows, cols = 2 * 16 * sms, 302
    matrix = shaped_ending_at_allocation_end((rows, cols), torch.bfloat16, 0)
    row_slice = matrix[1::2, 1:]
    SUM_V7(row_slice)  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = SUM_V7(row_slice)
    for replay in range(2):
        matrix.copy_(cpu_data(rows * cols, torch.bfloat16).view(rows, cols))
        graph.replay()
        torch.cuda.synchronize()
        check(static_output, row_slice, f"sum_v7 graph replay {replay}, row slice")
    if HAS_DIMS_OVERLOAD:
        # Rows, then columns in several bands (on the graph's own counters where
        # they finish in the last block).
        for shape, dim in (((37, 129), [1]), ((10000, 520), [0])):
            static_input = shaped_ending_at_allocation_end(shape, torch.float32, 0)
            SUM_V7.dim_IntList(static_input, dim)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_output = SUM_V7.dim_IntList(static_input, dim)
            graph.replay()
            torch.cuda.synchronize()
            check(static_output, static_input, f"sum_v7 {shape} dims={dim} graph replay", dim=dim)


def run_many_wave_part() -> None:
    """int32 (exact) and bfloat16 sums 3 chunks (512 threads of 4 16-byte vectors)
    and 5 elements past 16x L2, starting 1 element in and ending their allocation:
    a partial last chunk for the last block, a scalar head and tail for block 0,
    and the row's last L2 of chunks read first. The sizes need 1 GB of GPU memory."""
    l2_bytes = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size
    chunk_bytes = 512 * 4 * 16
    for dtype in (torch.int32, torch.bfloat16):
        numel = (16 * l2_bytes + 3 * chunk_bytes) // dtype.itemsize + 5
        x = on_gpu_ending_at_allocation_end(numel, dtype, 1)
        check(SUM_V7(x), x, f"sum_v7 over many waves, {numel} {dtype}, 1 element in")
        del x


PARTS = {
    "eager": [run_eager_part],
    "graph": [run_graph_part],
    "many-waves": [run_many_wave_part],
    "all": [run_eager_part, run_graph_part, run_many_wave_part],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=PARTS, default="all")
    part = parser.parse_args().part
    torch.manual_seed(0)
    for run in PARTS[part]:
        run()
    torch.cuda.synchronize()
    print(f"sanitizer target: part {part} ran and matched")


if __name__ == "__main__":
    main()
