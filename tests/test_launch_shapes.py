"""sum_v7's launch shapes, read from the profiler's record of each kernel launch."""

import json
import math
import re

import pytest
import torch
from child_process import TESTS_DIR, describe, run_python
from conftest import (
    LARGE_CHUNK_BYTES,
    assert_close_to_reference,
    assert_matches_torch,
    exact_gpu_sum,
    random_shaped,
    random_tensor,
    requires_cuda,
    skip_unless_free,
)

# The one-block shape's limits, in 16-byte vectors (contiguous_sum.cu): one load a
# thread up to 512 vectors (a warp per 32; 16-bit 2^12), two up to 1,024 (a warp per
# 64), then four (a warp per 128); past 2,048 a cluster of chunks where the GPU runs
# clusters, else a second round of four; the split shapes past 4,096.
ONE_BLOCK_VECTOR_EDGES = [1, 31, 32, 33, 511, 512, 513, 1023, 1024, 1025]
ONE_BLOCK_VECTOR_EDGES += [2047, 2048, 2049, 4095, 4096, 4097]
# float16 and bfloat16 rows of whole warps of 8-byte halves (2^7, 2^10, 2^11 and
# 2^12 elements: 32 threads of one, 128 of 2, 256 of 2 and of 4).
ONE_BLOCK_VECTOR_EDGES += [16, 128, 256]


def chunk_count(numel, dtype, loads):
    """contiguous_sum.cu's chunk_count: 512-thread chunks of `loads` 16-byte vectors
    a thread over `numel` elements of `dtype`."""
    return math.ceil(math.ceil(numel * dtype.itemsize / 16) / (512 * loads))


def dram_mb_per_s_per_multiprocessor(device):
    """device_cache.h's share of the peak DRAM bandwidth a multiprocessor, MB/s."""
    properties = torch.cuda.get_device_properties(device)
    mb_per_s = properties.memory_clock_rate * properties.memory_bus_width // 4000
    return max(1, mb_per_s // properties.multi_processor_count)


def many_wave_launches(numel, device):
    """The two launches of a one-row int32 sum of `numel` elements past 16x L2
    (contiguous_sum.cu's launch_many_waves), as (kernel name part, grid, block) each;
    None for a second launch whose shape depends on the GPU (clusters of another size).
    The blocks' int64 totals, 2 a vector, are a sum of their own: one cluster (16
    blocks on sm_90) of chunks of 4 loads a thread (2,048 vectors), else of 8, where
    the GPU runs it, else one 1,024-thread block. A block reads a chunk where that
    cluster holds their totals and a multiprocessor's share of the DRAM bandwidth is
    at most 30 GB/s (kChunkABlockMaxDramMBPerSm), else 2."""
    capability = torch.cuda.get_device_capability(device)
    on_sm90 = capability == (9, 0)
    whole_chunks = math.ceil(numel / 4) // (512 * 4)  # a partial one joins the last
    slow_memory = dram_mb_per_s_per_multiprocessor(device) <= 30000

    def cluster_chunks(totals, loads):
        return chunk_count(totals, torch.int64, loads)

    def cluster_loads(totals):
        return next((n for n in (4, 8) if on_sm90 and 1 < cluster_chunks(totals, n) <= 16), None)

    chunk_a_block = cluster_loads(whole_chunks) and slow_memory
    blocks = whole_chunks if chunk_a_block else math.ceil(whole_chunks / 2)
    read = ("many_wave_sum_kernel", [blocks, 1, 1], [512, 1, 1])
    if loads := cluster_loads(blocks):
        return read, (f"cluster_sum_kernel<{loads}", [cluster_chunks(blocks, loads), 1, 1],
                      [512, 1, 1])  # fmt: skip
    return read, (
        ("many_wave_finish_kernel", [1, 1, 1], [1024, 1, 1]) if capability[0] < 9 else None
    )


def assert_launched(launched, expected):
    assert len(launched) == len(expected), launched
    for (name, grid, block), want in zip(launched, expected, strict=True):
        if want is not None:
            assert want[0] in name and (grid, block) == (want[1], want[2]), (launched, expected)


def elements_per_vector(dtype):
    """The elements of dtype in one 16-byte vector load."""
    return 16 // dtype.itemsize


def sums_positions_in_int32(dtype):
    """1- and 2-byte integers (bool too), whose interleaved run sums in int32 and
    which interleave on the vector boundary too (problem.h's twin)."""
    return dtype.itemsize <= 2 and not dtype.is_floating_point


def is_sm90_of_132_sms(device):
    """Whether `device` is an H100 or H200 (sm_90, 132 multiprocessors), the GPUs on
    which the column-sum launch shapes below were measured and are asserted."""
    props = torch.cuda.get_device_properties(device)
    return (props.major, props.minor, props.multi_processor_count) == (9, 0, 132)


def launched_kernels(call, trace_path):
    """(name, grid, block) of every kernel that `call` launches."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
        call()
        torch.cuda.synchronize()
    profile.export_chrome_trace(str(trace_path))
    with open(trace_path) as trace:
        events = json.load(trace)["traceEvents"]
    return [
        (event["name"], event["args"]["grid"], event["args"]["block"])
        for event in events
        if event.get("cat") == "kernel"
    ]


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_grid_stride_shape_fits_one_wave(dtype, tmp_path):
    """A large sum's blocks must all be resident at once: with a grid-stride loop a
    second wave runs after the first and takes as long. The mid-size sum first,
    because its smaller blocks fit more per multiprocessor, and the shapes once
    shared one cached occupancy (whichever size came first set it)."""
    mid = torch.randn(1 << 20, device="cuda").to(dtype)
    large = torch.randn(1 << 26, device="cuda").to(dtype)
    torch.ops.reduce_opt.sum_v7(mid)
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(large), tmp_path / "trace.json")
    assert len(kernels) == 1, kernels
    _, grid, block = kernels[0]
    properties = torch.cuda.get_device_properties(large.device)
    resident_threads = properties.multi_processor_count * properties.max_threads_per_multi_processor
    assert grid[0] * block[0] <= resident_threads, (grid, block)
    assert grid[0] * block[0] > resident_threads // 2, (grid, block)


@requires_cuda
@pytest.mark.parametrize(
    "l2_multiple",
    [4, pytest.param(16, marks=pytest.mark.large), pytest.param(64, marks=pytest.mark.large)],
)
def test_large_sums_either_side_of_each_read_order_edge(l2_multiple, seed, tmp_path):
    """Up to 4x L2 a large sum reads from the end back; past that, the last L2 of
    chunks first, wrapping to the start; past 16x L2 the same order a block per chunk
    over many waves (per 2 where one cluster cannot hold the totals, 64x on an H100,
    or memory is fast for a multiprocessor, as an H200's), finished by a second
    launch (that cluster where the GPU runs one, else a block); past 64x L2 forward;
    many-wave sums read the first L2 of chunks after the tail in loads that
    allocate in L1, the rest in loads that do not.
    int32 sums are exact, so a chunk read twice or skipped at the wrap, or a block's
    total lost, shows as a wrong number: a chunk and an element either side of each
    edge, from an aligned and a misaligned start."""
    l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
    chunk = LARGE_CHUNK_BYTES // 4
    edge = l2_multiple * l2_bytes // 4
    skip_unless_free(4 * (edge + chunk + 2) + 8 * 2**28)
    base = torch.randint(-1000, 1000, (edge + chunk + 2,), dtype=torch.int32, device="cuda")
    for numel in (edge - chunk, edge - 1, edge, edge + 1, edge + chunk):
        for offset in (0, 1):
            view = base[offset : offset + numel]
            expected = exact_gpu_sum(view)
            assert torch.ops.reduce_opt.sum_v7(view).item() == expected, (numel, offset)
    if l2_multiple == 16:
        launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(base), tmp_path / "t.json")
        assert_launched(launched, many_wave_launches(base.numel(), base.device))


@pytest.mark.large
@requires_cuda
def test_many_wave_totals_wait_for_the_read(seed, tmp_path):
    """Past 16x L2 the sum of the blocks' totals, where one cluster holds them, may
    start before the read kernel ends (programmatic dependent launch) and waits for
    it. Back-to-back sums of different inputs of one size, no sync between them: each
    call's totals land in scratch memory where the call before left other values,
    which a sum that read them early would add. Exact int32 sums against torch's. The
    launches are asserted, and where the totals take a cluster, that it is the
    instantiation that waits (the launch attribute itself is not visible here)."""
    l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
    numel = 16 * l2_bytes // 4 + LARGE_CHUNK_BYTES // 4
    skip_unless_free(3 * 4 * numel + 8 * 2**28)
    inputs = [
        torch.randint(-1000, 1000, (numel,), dtype=torch.int32, device="cuda") for _ in range(3)
    ]
    expected = [exact_gpu_sum(x) for x in inputs]
    results = [torch.ops.reduce_opt.sum_v7(x) for x in inputs + inputs]
    assert [result.item() for result in results] == expected + expected
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(inputs[0]), tmp_path / "t.json")
    expected_launches = many_wave_launches(numel, inputs[0].device)
    assert_launched(launched, expected_launches)
    totals_launch = expected_launches[1]
    if totals_launch is not None and totals_launch[0].startswith("cluster_sum_kernel"):
        assert ", true>" in launched[1][0], launched


@pytest.mark.large
@requires_cuda
@pytest.mark.parametrize("extra_chunks", [0, 1])
def test_many_wave_sums_either_side_of_one_cluster_of_wide_chunks(extra_chunks, seed, tmp_path):
    """2^17 chunks of int32 (2^30 elements, 4 GB) give the most int64 totals that one
    cluster of 16 chunks of 8 loads a thread holds: a block a chunk, and that cluster
    over their totals on an H100 (an H200, whose memory is faster, reads 2 chunks a
    block); a chunk more reads 2 chunks a block, and its half as many totals take 9
    such chunks. Exact sums against torch's."""
    chunk = LARGE_CHUNK_BYTES // 4
    numel = (2**17 + extra_chunks) * chunk
    skip_unless_free(4 * numel + 8 * 2**28)
    x = torch.randint(-1000, 1000, (numel,), dtype=torch.int32, device="cuda")
    expected = exact_gpu_sum(x)
    assert torch.ops.reduce_opt.sum_v7(x).item() == expected
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x), tmp_path / "t.json")
    assert_launched(launched, many_wave_launches(numel, x.device))


@requires_cuda
@pytest.mark.parametrize("rows", [4, "sms"])
def test_large_row_sums_read_each_row_in_its_own_rotation(rows, tmp_path, seed):
    """Rows past 4x L2 in all, side by side in the contiguous class's one-wave split:
    each row rotates on its own, whether it holds more than an L2 of chunks (4 rows of
    3x L2, their starts off 16 bytes) or fewer (a row of 4 MB or more an SM, read
    forward from its start). Exact int32 sums against torch's."""
    properties = torch.cuda.get_device_properties(0)
    l2_bytes, sms = properties.L2_cache_size, properties.multi_processor_count
    if rows == "sms":
        rows, length = sms, max(2**20, 9 * l2_bytes // (4 * sms))
    else:
        length = 3 * l2_bytes // 4 + 5
    skip_unless_free(12 * rows * length)
    x = torch.randint(-1000, 1000, (rows, length), dtype=torch.int32, device="cuda")
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "t.json")
    assert len(launched) == 1, launched
    assert "contiguous_sum_kernel" in launched[0][0] and launched[0][1][1] == rows, launched
    assert torch.equal(torch.ops.reduce_opt.sum_v7(x, [1]), x.sum(1, dtype=torch.int64))


@requires_cuda
@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int8, torch.float64], ids=str
)
@pytest.mark.parametrize("offset", [0, 1], ids=["aligned", "misaligned"])
def test_contiguous_sums_at_the_one_block_edges(dtype, offset, seed):
    """Each edge of the one-block shape, a vector either side and an element either
    side, from an aligned pointer and from one whose first vector needs a scalar head."""
    per_vector = elements_per_vector(dtype)
    base = random_tensor(4097 * per_vector + 2 + offset, dtype, "cuda")
    for vectors in ONE_BLOCK_VECTOR_EDGES:
        for extra in (-1, 0, 1):
            view = base[offset : offset + vectors * per_vector + extra]
            assert_close_to_reference(
                torch.ops.reduce_opt.sum_v7(view), view, f"numel={view.numel()} offset={offset}"
            )


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("out_dtype", [None, torch.float32], ids=str)
@pytest.mark.parametrize("rows", [1, 5, 64])
def test_16_bit_rows_of_half_vectors_sum_exactly(dtype, out_dtype, rows, seed):
    """Rows of 2^7, 2^10, 1,920, 2^11 and 2^12 small integers (the 8-byte one-block
    shapes of one, 2 and 4 loads a thread, where a row starts on 16 bytes: row padding
    0 and 8 elements; a 4-element padding of more than one row, or a 4-element storage
    offset, keeps the 16-byte shape), of 2^13 and 2^14 (512 threads of 2 and 4
    16-byte loads, a launch-fixed block), and of 2^15 (a cluster a row where the GPU
    runs that many clusters at once, else the block's second round), summed over the
    last dim and in full, as the row's dtype and as float32: the exact sum rounded
    once, so an element dropped or read twice shows."""
    for length in (128, 1024, 1920, 2048, 4096, 8192, 16384, 32768):
        for pad, offset in ((0, 0), (8, 0), (4, 0), (8, 4)):
            storage = torch.randint(-8, 9, (rows * (length + pad) + offset,), device="cuda")
            x = storage.to(dtype)[offset:].view(rows, length + pad)[:, :length]
            exact = x.double()
            expected_dtype = out_dtype or dtype
            context = f"rows={rows} length={length} pad={pad} offset={offset}"
            row_sums = torch.ops.reduce_opt.sum_v7(x, [-1], dtype=out_dtype)
            assert torch.equal(row_sums, exact.sum(-1).to(expected_dtype)), context
            total = torch.ops.reduce_opt.sum_v7(x[0], dtype=out_dtype)
            assert torch.equal(total, exact[0].sum().to(expected_dtype)), context


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32], ids=str)
@pytest.mark.parametrize("rows", [1, 5, 64])
def test_4_byte_rows_of_fixed_blocks_sum_exactly(dtype, rows, seed):
    """Rows of 2^10 and 2^11 small integers (128 and 256 threads of 2 loads), 2^12 and
    2^13 (512 threads of 2 and 4): one-block shapes whose block size the launch fixes,
    so that their warps finish as Triton's (sum_over_fixed_warps); 1,152 (288 threads
    of one load, the runtime warp count) beside them; 2^14 past the one block's first
    round (a cluster a row, or the block's second round where no cluster takes the
    rows). Summed over the last dim and in full; exact sums, so an element or a warp's
    sum dropped or added twice shows."""
    for length in (1024, 1152, 2048, 4096, 8192, 16384):
        x = torch.randint(-8, 9, (rows, length), device="cuda").to(dtype)
        exact = x.double()
        row_sums = torch.ops.reduce_opt.sum_v7(x, [-1])
        assert torch.equal(row_sums, exact.sum(-1).to(row_sums.dtype)), (rows, length)
        total = torch.ops.reduce_opt.sum_v7(x[-1])
        assert torch.equal(total, exact[-1].sum().to(total.dtype)), (rows, length)


@requires_cuda
@pytest.mark.parametrize(
    ("dtype", "numel", "block"),
    [
        (torch.float32, 4, 32),
        (torch.float32, 2**10, 128),
        (torch.float32, 2**11, 256),
        (torch.int32, 2**10, 128),
        (torch.int32, 2**11, 256),
        (torch.int32, 2**13, 512),
        (torch.float32, 1152, 288),
        (torch.float32, 2**9, 128),
        (torch.float32, 2**12, 512),
        (torch.float32, 2**13, 512),
        (torch.bfloat16, 2**10, 128),
        (torch.bfloat16, 2**11, 256),
        (torch.bfloat16, 2**12, 256),
        (torch.bfloat16, 2**12 + 64, 288),
        (torch.float16, 2**10, 128),
        (torch.float16, 2**11, 256),
        (torch.float16, 2**12, 256),
        (torch.float16, 1920, 480),
        (torch.float16, 2**13, 512),
        (torch.bfloat16, 2**14, 512),
    ],
    ids=str,
)
def test_small_sums_launch_one_block_of_just_enough_warps(dtype, numel, block, tmp_path):
    """fp32: 2^10 and 2^11 elements are 256 and 512 vectors, two a thread in half as
    many threads (int32 the same); 1,152 (288 vectors, 9 warps, odd) and 2^9 (128) one
    a thread; 2^12 two a thread; 2^13 four a thread.
    16-bit 2^10: 2 8-byte half vectors a thread; 2^11 and 2^12 twice the block, of 2
    and 4; other whole warps of halves up to 512 one a thread (1,920 elements: 480);
    past 2^12, 16-byte vectors again (4,160: 520 vectors, 2 a thread in 9 warps).
    A kernel built for a fixed block size (its last template argument, 0 where the
    launch picks it) runs in blocks of that size."""
    x = torch.randn(numel, device="cuda").to(dtype)
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x), tmp_path / "trace.json")
    assert [(grid, block_) for _, grid, block_ in kernels] == [([1, 1, 1], [block, 1, 1])], kernels
    arguments = re.search(r"one_block_sum_kernel<([^>]*)>", kernels[0][0])
    assert arguments, kernels
    arguments = arguments.group(1).split(", ")
    assert len(arguments) in (4, 5) and arguments[4:] in ([], ["0"], [str(block)]), kernels


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize(
    ("numel", "loads", "fit"),
    [(2**7, 1, 4), (2**10, 2, 4), (1920, 1, 3), (2**11, 2, 3), (2**12, 4, 3)],
)
@pytest.mark.parametrize("rows", [1, 5])
def test_16_bit_half_vector_loads_allocate_in_l1_up_to_2_kb(
    dtype, numel, loads, fit, rows, tmp_path
):
    """The 8-byte one-block loads go through L1 for up to 256 halves in all (1 or 2 a
    thread: RowFit::kL1Halves, the enum's value 4) and keep L1::no_allocate past that
    (kWholeRoundOfHalves, 3): the splits that contiguous_sum.cu measured. The kernel
    name carries the loads a thread and the fit (a cast enum value) as its first
    template arguments. A full sum, and 5 rows 16 bytes apart summed over the last
    dim: the same kernel, a block a row."""
    x = torch.randn(rows, numel + 8, device="cuda").to(dtype)[:, :numel]
    arguments = (x[0],) if rows == 1 else (x, [-1])
    kernels = launched_kernels(
        lambda: torch.ops.reduce_opt.sum_v7(*arguments), tmp_path / "trace.json"
    )
    first_arguments = re.compile(rf"one_block_sum_kernel<{loads}, \([\w:() ]*RowFit\){fit},")
    assert len(kernels) == 1 and first_arguments.search(kernels[0][0]), kernels
    assert kernels[0][1] == [rows, 1, 1], kernels


@requires_cuda
@pytest.mark.parametrize(
    ("dtype", "numel"),
    [
        (torch.float32, 2**14),
        (torch.int32, 2**14),
        (torch.bfloat16, 2**15),
        (torch.float32, 2**13 + 4),
        (torch.float64, 2**13),
    ],
    ids=str,
)
def test_past_one_round_of_the_one_block_a_cluster_or_a_second_round(dtype, numel, tmp_path):
    """More vectors than one round of the one block holds (2,048), up to two rounds
    (4,096): one cluster of narrow chunks where the GPU runs clusters (1,024 vectors;
    512 for 16-bit types, 2,048 for 8-byte ones); elsewhere the same block's second
    round."""
    x = random_tensor(numel, dtype, "cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x), tmp_path / "trace.json")
    if torch.cuda.get_device_capability(x.device)[0] >= 9:
        loads = {8: 4, 4: 2, 2: 1}[dtype.itemsize]
        expected = ("cluster_sum_kernel", [chunk_count(numel, dtype, loads), 1, 1])
    else:
        expected = ("one_block_sum_kernel", [1, 1, 1])
    assert len(kernels) == 1 and expected[0] in kernels[0][0], kernels
    assert (kernels[0][1], kernels[0][2]) == (expected[1], [512, 1, 1]), kernels
    assert_close_to_reference(torch.ops.reduce_opt.sum_v7(x), x, f"numel={numel}")


@requires_cuda
def test_past_the_one_block_shape_the_sum_splits(tmp_path):
    x = torch.randn(2**14 + 4, device="cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x), tmp_path / "trace.json")
    assert len(kernels) == 1 and kernels[0][1][0] > 1, kernels


def mid_split_blocks(numel, dtype, sms):
    """The mid split's grid (launch_contiguous_sum): a block per chunk of 4 vectors
    a thread (2,048), or of 2 (1,024) for types of 4 or more elements a vector
    while chunks of 4 would be fewer than the multiprocessors."""
    wide = chunk_count(numel, dtype, 4)
    narrow = chunk_count(numel, dtype, 2)
    return narrow if dtype.itemsize <= 4 and wide < sms else wide


@requires_cuda
@pytest.mark.parametrize(
    ("dtype", "numel", "blocks"),
    [
        (torch.float32, 2**18, 64),
        (torch.float32, 2**18 + 1, 65),
        (torch.int32, 2**18 - 3, 64),
        (torch.bfloat16, 2**19, 64),
        (torch.bfloat16, 2**18 + 1, 33),
        (torch.int8, 2**19 + 1, 33),
    ],
    ids=str,
)
def test_mid_sums_launch_a_block_per_chunk(dtype, numel, blocks, tmp_path):
    """Mid sizes: a 512-thread block per chunk of 2 loads a thread (4-, 2- and
    1-byte types; 1,024 vectors), `blocks` of them on a GPU of more
    multiprocessors than these sums' chunks of 2 loads (at most 64); a smaller GPU
    takes the mid split's grid for its multiprocessors (mid_split_blocks)."""
    x = random_tensor(numel, dtype, "cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x), tmp_path / "trace.json")
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    expected = blocks if sms > 64 else mid_split_blocks(numel, dtype, sms)
    shapes = [(grid, block) for _, grid, block in kernels]
    assert shapes == [([expected, 1, 1], [512, 1, 1])], kernels


@requires_cuda
@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.int32, torch.bfloat16, torch.float16, torch.int8], ids=str
)
@pytest.mark.parametrize(
    ("wide_blocks_over_sms", "vectors_over", "offset"),
    [(-1, 0, 0), (0, 0, 0), (0, -1023, 1), (-1, -1, 1)],
    ids=["narrow", "wide", "wide-misaligned", "narrow-misaligned"],
)
def test_narrow_chunks_only_while_wide_ones_leave_a_multiprocessor_idle(
    dtype, wide_blocks_over_sms, vectors_over, offset, tmp_path
):
    """Mid sums of 4-, 2- and 1-byte types take chunks of 2 loads a thread (1,024
    vectors) while chunks of 4 (2,048 vectors) would be fewer than the
    multiprocessors, and chunks of 4 from there on; either side of the boundary, a
    whole number of chunks and not, from an aligned pointer and from one that needs
    a scalar head."""
    device = torch.device("cuda", torch.cuda.current_device())
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    per_vector = elements_per_vector(dtype)
    vectors = (sms + wide_blocks_over_sms) * 2048 + vectors_over
    base = random_tensor(vectors * per_vector + offset, dtype, device)
    x = base[offset:]
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x), tmp_path / "trace.json")
    blocks = mid_split_blocks(x.numel(), dtype, sms)
    # Where those chunks are few enough for one cluster, the cluster kernel takes
    # them (GPUs of 16 or fewer multiprocessors, none of them Hopper-class).
    if blocks > 16:
        shapes = [(grid, block) for _, grid, block in kernels]
        assert shapes == [([blocks, 1, 1], [512, 1, 1])], kernels
    assert_close_to_reference(torch.ops.reduce_opt.sum_v7(x), x, f"numel={x.numel()}")


@requires_cuda
@pytest.mark.parametrize(
    ("dtype", "numel", "blocks"),
    [
        (torch.float32, 2**14 + 4, 5),
        (torch.float32, 2**15, 8),
        (torch.bfloat16, 2**16, 16),
        (torch.float16, 2**15 + 8, 9),
        (torch.float64, 2**13 + 2, 3),
        (torch.int32, 2**16, 16),
        (torch.float32, 2**17, 16),
        (torch.bfloat16, 2**17 - 7, 16),
    ],
    ids=str,
)
def test_a_few_chunks_are_one_cluster_where_the_gpu_has_clusters(dtype, numel, blocks, tmp_path):
    """Up to 8 mid-size chunks (the portable cluster size): one cluster_sum_kernel
    launch on Hopper and newer; up to 16 where the GPU runs such clusters, as an
    H100 and an H200 (sm_90) do. The chunk kernel with its in-kernel finish before them.
    On other Hopper-and-newer GPUs (clusters of 8), a sum of 4-byte or narrower
    elements in more chunks than their clusters hold may take a cluster of chunks of
    2 or 4 loads instead, or the mid split's grid where those are too many as well
    (launch_contiguous_sum); GPUs without clusters take the mid split's grid."""
    x = random_tensor(numel, dtype, "cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x), tmp_path / "trace.json")
    capability = torch.cuda.get_device_capability(x.device)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    mid_split = ("contiguous_sum_kernel", mid_split_blocks(numel, dtype, sms))
    # (kernel, grid) pairs the launch may take.
    shapes = [("cluster_sum_kernel", blocks)]
    if capability[0] < 9:
        shapes = [mid_split]
    elif blocks > 8 and capability != (9, 0):
        if dtype.itemsize <= 4:  # clusters of 8 at most: chunks of 2 or 4 loads
            shapes += [("cluster_sum_kernel", chunk_count(numel, dtype, loads)) for loads in (2, 4)]
        shapes.append(mid_split)
    assert len(kernels) == 1, kernels
    name, grid, block = kernels[0]
    assert any(kernel in name and grid == [size, 1, 1] for kernel, size in shapes), kernels
    assert block == [512, 1, 1], kernels
    assert_close_to_reference(torch.ops.reduce_opt.sum_v7(x), x, f"numel={numel}")


@requires_cuda
@pytest.mark.parametrize(
    ("dtype", "numel"),
    [
        (torch.float32, 2**17),
        (torch.bfloat16, 2**18),
        (torch.float16, 2**18 - 9),
        (torch.int8, 2**19),
    ],
)
def test_chunks_of_4_loads_where_they_fit_one_cluster_and_2_do_not(dtype, numel, tmp_path):
    """Mid sums of 4-, 2- and 1-byte types take chunks of 2 loads a thread, unless
    those are more than a cluster holds and chunks of 4 are not (or chunks of 4 give
    every multiprocessor a block): on an sm_90 GPU (clusters of 16), 2^18 bfloat16
    elements are one cluster of 16 chunks of 4, not 32 chunks of 2."""
    x = random_tensor(numel, dtype, "cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x), tmp_path / "trace.json")
    if torch.cuda.get_device_capability(x.device) == (9, 0):
        assert len(kernels) == 1 and "cluster_sum_kernel<4" in kernels[0][0], kernels
        assert (kernels[0][1], kernels[0][2]) == ([16, 1, 1], [512, 1, 1]), kernels
    assert_close_to_reference(torch.ops.reduce_opt.sum_v7(x), x, f"numel={numel}")


@requires_cuda
def test_a_column_sum_of_a_few_splits_is_a_cluster_a_band(tmp_path):
    """64x256x64 dim=1: 64 bands of 64 columns, whose 256 rows are 4 splits of one
    round of loads (on any GPU of 64 or more multiprocessors): one launch, a cluster
    of splits a band on Hopper and newer, the ticket kernel before them."""
    x = torch.randn(64, 256, 64, device="cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "trace.json")
    has_clusters = torch.cuda.get_device_capability(x.device)[0] >= 9
    kernel = "column_cluster_kernel" if has_clusters else "column_sum_kernel"
    assert len(kernels) == 1 and kernel in kernels[0][0], kernels
    assert kernels[0][1][:2] == [64, 4], kernels


@requires_cuda
def test_a_column_sum_whose_clusters_overfill_a_wave_takes_fewer_splits(tmp_path, seed):
    """fp32 64x1024x64 dim=1: 64 bands of 64 columns, 8 splits of 8 rows a thread.
    On an H100 (sm_90, 132 multiprocessors) fewer than 64 clusters of 8 fit at once,
    so each band takes 7 splits in a cluster (9-10 rows a thread) rather than 8
    finished through partials in L2."""
    x = random_shaped((64, 1024, 64), torch.float32, "cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "trace.json")
    assert_band_finish(kernels, x.dtype)
    if is_sm90_of_132_sms(x.device):
        assert "column_cluster_kernel" in kernels[0][0], kernels
        assert kernels[0][1][:2] == [64, 7], kernels
    result = torch.ops.reduce_opt.sum_v7(x, [1])
    assert_matches_torch(result, x, [1], False, message=f"seed={seed}")


# Small column sums over dim 0 (column_sum.cu's small_sum_bands) on an H100 or H200
# (sm_90, 132 multiprocessors), where the widest bands' splits would give a thread more
# than a round of 4 rows or be more than a cluster: clusters of 8 splits of the
# narrowest bands (rows read in spans of 32 bytes or more) whose blocks fill at most one
# an SM, where a thread has at most 2 rounds; else, for a column a thread of 2 or 4
# bytes, one an SM and 4 rounds; else at most two an SM and 4 rounds; else the shapes as
# before. Rows off the vector boundaries (and 1- and 2-byte integers on them) that take
# a column a thread too, its bands down to 4 lanes (or spans of 16 bytes where those are
# fewer lanes: 8-byte types) and its rounds the rows its cluster kernel loads at once
# (16 for types narrower than 8 bytes, 8 for 8-byte ones). (rows, columns, row stride,
# dtype, grid of the cluster kernel, or None for splits through L2): rows apart by more
# than their columns (a slice of wider rows, on the vector boundary where the columns'
# are, off it where not) where the interleaved run would read them back to back
# (test_interleaved_columns_read_as_one_run_of_vectors: fp32 20001x66, fp16 12001x127).
SMALL_COLUMN_SUMS = [
    (3001, 64, 64, torch.float32, [8, 8]),  # 2 lanes (32 bytes), 64 blocks, 3 rows a thread
    # aligned 1- and 2-byte integers: a column a thread (4 lanes, 64 blocks, 3-4 rows)
    (2001, 32, 32, torch.int16, [8, 8]),
    (3001, 66, 66, torch.float32, [9, 8]),  # a column a thread: 8 lanes, 72 blocks, 11-12 rows
    (2001, 33, 33, torch.int16, [9, 8]),  # a column a thread: 4 lanes, 72 blocks, 3-4 rows
    (4001, 127, 127, torch.float16, [16, 8]),  # a column a thread: 8 lanes, 128 blocks, 15-16 rows
    (6001, 33, 33, torch.float32, [9, 8]),  # a column a thread: 4 lanes, 72 blocks, 11-12 rows
    # rows off the boundaries that a column a thread reads in these clusters before
    # off-boundary vectors: 4 lanes, 136 blocks, 39-40 rows; 32 lanes, 256 blocks, 32
    (20001, 66, 67, torch.float32, [17, 8]),
    (2048, 1001, 1001, torch.float32, [32, 8]),
    (4096, 256, 256, torch.float32, [16, 8]),  # 4 lanes: 128 blocks, 8 rows a thread
    (8192, 768, 768, torch.bfloat16, [24, 8]),  # 8 lanes: 32 rows a thread; 4: 192 blocks of 16
    # 2 lanes would give 20 rows a thread: through L2 (back to back, 33-128 such
    # columns take the interleaved run: test_interleaved_columns_read_as_one_run_...)
    (20000, 72, 76, torch.float32, None),
    (64, 4096, 4096, torch.float32, [32, 2]),  # one round in 2 splits already: as before
    # The other types' column a thread. 33 columns: bands of 4 lanes (8-byte types'
    # 16-byte spans, 2 lanes, would be 17 bands, 136 blocks); 1001 columns: 32 lanes,
    # 256 blocks (two an SM). 16 rows a round but for 8-byte types (8).
    (8001, 33, 33, torch.int32, [9, 8]),  # 15-16 rows a thread
    (2048, 1001, 1001, torch.int32, [32, 8]),  # 32 rows a thread (off-boundary vectors before)
    (2001, 33, 33, torch.int64, [9, 8]),  # 3-4 rows a thread
    (1001, 1001, 1001, torch.float64, [32, 8]),  # 15-16 rows a thread (vectors before)
    (2001, 33, 33, torch.int8, [9, 8]),  # 3-4 rows a thread
    (2048, 1001, 1001, torch.uint8, [32, 8]),  # 32 rows a thread (vectors through L2 before)
    (4001, 127, 127, torch.bool, [16, 8]),  # 8 lanes (4: 256 blocks): 15-16 rows a thread
    # Past one block an SM at 2 rounds, a column a thread of 2 or 4 bytes takes one an
    # SM at up to 4 rounds; 1- and 8-byte ones take two an SM first.
    (12001, 127, 129, torch.float16, [16, 8]),  # 8 lanes, 46-47 rows (4: 256 blocks of 23-24)
    (16001, 66, 67, torch.bfloat16, [9, 8]),  # 8 lanes, 62-63 rows (4: 136 blocks of 31-32)
    (12001, 67, 69, torch.float32, [9, 8]),  # 8 lanes, 46-47 rows (4: 136 blocks of 23-24)
    (10001, 66, 67, torch.int8, [17, 8]),  # 4 lanes, 136 blocks, 19-20 rows (8: 9 bands, 39-40)
    (12001, 33, 35, torch.int64, [17, 8]),  # 2 lanes, 136 blocks, 11-12 rows (4: 9 bands, 23-24)
]


@requires_cuda
@pytest.mark.parametrize(
    ("rows", "columns", "row_stride", "dtype", "grid"),
    SMALL_COLUMN_SUMS,
    ids=[f"{rows}x{columns}-{dtype}" for rows, columns, _, dtype, _ in SMALL_COLUMN_SUMS],
)
def test_small_column_sums_take_clusters_of_narrow_bands(
    rows, columns, row_stride, dtype, grid, tmp_path, seed
):
    x = random_shaped((rows, row_stride), dtype, "cuda")[:, :columns]
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [0]), tmp_path / "trace.json")
    if is_sm90_of_132_sms(x.device):
        if grid is None:
            assert "column_sum_kernel" in kernels[0][0] and kernels[0][1][1] > 1, kernels
            assert_band_finish(kernels, dtype)
        else:
            assert len(kernels) == 1 and "column_cluster_kernel" in kernels[0][0], kernels
            per_vector = elements_per_vector(dtype)
            interleaves = sums_positions_in_int32(dtype) and columns <= 32
            vector_columns = per_vector if columns % per_vector == 0 and not interleaves else 1
            assert column_kernel_arguments(kernels[0][0])[:2] == (vector_columns, False), kernels
            assert kernels[0][1][:2] == grid, kernels
    result = torch.ops.reduce_opt.sum_v7(x, [0])
    assert_matches_torch(result, x, [0], False, message=f"seed={seed}")


# Sums of 33 columns, a column a thread with 16 rows' loads in flight (fp32, and the
# other types narrower than 8 bytes in clusters, whose missing rows add zeros) or 8,
# whose threads end with 0 to 15 or 0 to 7 rows for the last round, and on sm_90 with
# 132 SMs the grid each takes: (rows, dtype, kernel, grid). In clusters of 8 splits,
# bands are 4 lanes (64 row lanes), and past 16 rows a thread (8 for 8-byte types) a
# thread loads two rounds: 511 rows leave a thread 0-1 rows, 2001 3-4, 3199 6-7, 4097
# 8-9, 5121 10-11, 6001 11-12, 6657 13-14, 7169 14-15, 8193 16-17, 16-bit 16,001
# 31-32, 20,001 39-40 and 27,649 54-55 (within the second limit's 4 rounds of 16);
# 8-byte 777 1-2, 3001 5-6, 4097 8-9, 6001 11-12, and 8193 rows in 17 bands of 2
# lanes 8-9 (past a block an SM, within two and 4 rounds of 8). Past the clusters'
# rows, 4- and 8-byte sums of 33 columns take the interleaved run from 2.4
# elements a thread of its wave (9,831 rows on 132 SMs; launch_column_sum), 1- and
# 2-byte ones from 4.5 (18,432 rows): test_interleaved_columns_read_as_one_run_...;
# a column a thread through L2 takes such sums with rows apart by more than their
# columns (test_a_column_a_thread_through_l2_narrows_...).
COLUMN_A_THREAD_SUMS = [
    (rows, narrower_than_8_bytes, "column_cluster_kernel", [9, 8])
    for narrower_than_8_bytes in (
        torch.float32,
        torch.int32,
        torch.bfloat16,
        torch.float16,
        torch.int16,
        torch.int8,
        torch.uint8,
        torch.bool,
    )
    for rows in (511, 2001, 3199, 4097, 5121, 6001, 6657, 7169, 8193)
]
COLUMN_A_THREAD_SUMS += [
    (rows, eight_byte, "column_cluster_kernel", [9, 8] if rows < 8193 else [17, 8])
    for eight_byte in (torch.int64, torch.float64)
    for rows in (777, 3001, 4097, 6001, 8193)
]
# 16001 rows of 16-bit types, 31-32 a thread, stay here.
for sixteen_bit in (torch.bfloat16, torch.float16, torch.int16):
    COLUMN_A_THREAD_SUMS += [(16001, sixteen_bit, "column_cluster_kernel", [9, 8])]


def assert_one_flat_column_a_thread(kernels, kernel, grid):
    """That `kernels` (launched_kernels) are one launch of `kernel`, column_sum.cu's
    flat column a thread (one column a thread, rows on or off the vector boundaries,
    a flat index), of `grid` (x, y)."""
    assert len(kernels) == 1 and kernel in kernels[0][0], kernels
    assert column_kernel_arguments(kernels[0][0]) == (1, False, True), kernels
    assert kernels[0][1][:2] == grid, kernels


@requires_cuda
@pytest.mark.parametrize(
    ("rows", "dtype", "kernel", "grid"),
    COLUMN_A_THREAD_SUMS,
    ids=[f"{rows}x33-{dtype}" for rows, dtype, _, _ in COLUMN_A_THREAD_SUMS],
)
def test_a_column_a_thread_adds_only_the_rows_its_last_round_loads(
    rows, dtype, kernel, grid, tmp_path, seed
):
    x = random_shaped((rows, 33), dtype, "cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [0]), tmp_path / "trace.json")
    if is_sm90_of_132_sms(x.device):
        assert_one_flat_column_a_thread(kernels, kernel, grid)
    result = torch.ops.reduce_opt.sum_v7(x, [0])
    assert_matches_torch(result, x, [0], False, message=f"seed={seed}")


# Long sums of a flat column a thread through L2 (sm_90, 132 SMs): where the widest
# bands (32 lanes) leave a third or more of their lanes idle, or, of 1-byte columns,
# are 3 or fewer and leave a third of the last band's lanes idle, bands of 4 lanes
# of a wave's splits; else the widest, 256 splits (the finish's cap) or a wave's.
# (rows, columns, row stride, dtype, grid): rows apart by more than their columns
# (a slice of wider rows, off the vector boundary), which the interleaved run,
# whose rows lie back to back, does not read
# (test_interleaved_columns_read_as_one_run_of_vectors: 33-128 such columns).
NARROW_L2_BAND_SUMS = [
    (100001, 41, 42, torch.int16, [11, 48]),  # 23 of 64 lanes idle
    (100001, 45, 46, torch.int16, [2, 256]),  # 19 of 64
    (100001, 65, 66, torch.float16, [3, 176]),  # 31 of 96
    (70001, 41, 42, torch.int8, [11, 48]),
    (70001, 51, 52, torch.int8, [13, 40]),  # 13 of 64, 2 bands
    (70001, 65, 66, torch.int8, [17, 31]),  # 3 bands, 31 of the last's 32 lanes idle
    (70001, 95, 97, torch.int8, [3, 176]),  # 1 of the last's 32
    (70001, 97, 98, torch.int8, [4, 132]),  # 4 bands
    (100001, 33, 34, torch.int16, [9, 58]),  # 2 of 32 lanes: 31 of 64 idle
    (100001, 33, 34, torch.uint8, [9, 58]),
]


@requires_cuda
@pytest.mark.parametrize(
    ("rows", "columns", "row_stride", "dtype", "grid"),
    NARROW_L2_BAND_SUMS,
    ids=[f"{rows}x{columns}-{dtype}" for rows, columns, _, dtype, _ in NARROW_L2_BAND_SUMS],
)
def test_a_column_a_thread_through_l2_narrows_bands_a_third_idle(
    rows, columns, row_stride, dtype, grid, tmp_path, seed
):
    x = random_shaped((rows, row_stride), dtype, "cuda")[:, :columns]
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [0]), tmp_path / "trace.json")
    if is_sm90_of_132_sms(x.device):
        assert_one_flat_column_a_thread(kernels, "column_sum_kernel", grid)
    result = torch.ops.reduce_opt.sum_v7(x, [0])
    assert_matches_torch(result, x, [0], False, message=f"seed={seed}")


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.int8, torch.bfloat16], ids=str)
def test_a_column_a_thread_through_l2_takes_16_rows_a_thread_a_split(dtype, tmp_path, seed):
    """(4, 10000, 33)[::2] over dims (0, 1): 20,000 rows over two reduced dims that
    do not coalesce, a column a thread in the general-index kernels, whose bands
    small_sum_bands leaves at 32-byte spans and whose rounds it counts as kUnroll
    rows: through L2 in 2 bands of 32 lanes (8 row lanes), where the finish's cap
    gives 256 splits of 9-10 rows a thread and kColumnAThreadL2RowsPerThread 156
    of 16-17 (column_sum.cu; the grid on sm_90 with 132 SMs)."""
    x = random_shaped((4, 10000, 33), dtype, "cuda")[::2]
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [0, 1]), tmp_path / "t.json")
    if is_sm90_of_132_sms(x.device):
        assert len(kernels) == 1 and "column_sum_kernel" in kernels[0][0], kernels
        assert column_kernel_arguments(kernels[0][0]) == (1, False, False), kernels
        assert kernels[0][1][:2] == [2, 156], kernels
    result = torch.ops.reduce_opt.sum_v7(x, [0, 1])
    assert_matches_torch(result, x, [0, 1], False, message=f"{seed=}")


@requires_cuda
def test_odd_columns_take_a_column_a_thread_in_small_clusters(tmp_path, seed):
    """bf16 2000x1001 dim=0: a column a thread reads it in small_sum_bands' clusters
    of 8 splits of 32 bands, two rounds of 16 rows a thread, which
    launch_column_sum prefers to off-boundary vectors (8 bands of 31 splits through
    L2; column_sum.cu; the grid on sm_90 with 132 SMs)."""
    x = random_shaped((2000, 1001), torch.bfloat16, "cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [0]), tmp_path / "trace.json")
    if is_sm90_of_132_sms(x.device):
        assert_one_flat_column_a_thread(kernels, "column_cluster_kernel", [32, 8])
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [0]), x, [0], False, message=f"{seed=}")


@requires_cuda
@pytest.mark.parametrize("hw", [(56, 56), (55, 57)], ids=str)
def test_a_long_column_sum_finishes_in_clusters_of_narrower_bands(hw, tmp_path, seed):
    """bf16 32x256xHxW channels_last dim=(2,3): 32 bands of 512 bytes, whose ~3,136
    rows a wave of single blocks splits 16 ways, finishing through partials in L2.
    On an H100 (sm_90, 132 multiprocessors) the same blocks, fewer by an eighth at
    most, are 64 bands of 256 bytes in clusters of up to 8 splits, each band
    finished in its cluster. Rows uneven across the splits too (55x57)."""
    x = torch.randn(32, 256, *hw, device="cuda").to(torch.bfloat16)
    x = x.contiguous(memory_format=torch.channels_last)
    kernels = launched_kernels(
        lambda: torch.ops.reduce_opt.sum_v7(x, [2, 3]), tmp_path / "trace.json"
    )
    assert_band_finish(kernels, x.dtype)
    if is_sm90_of_132_sms(x.device):
        assert "column_cluster_kernel" in kernels[0][0], kernels
        assert kernels[0][1][0] == 64 and 7 <= kernels[0][1][1] <= 8, kernels
    result = torch.ops.reduce_opt.sum_v7(x, [2, 3])
    assert_matches_torch(result, x, [2, 3], False, message="long column sum")


# Long column sums over a few bands whose finish caps their splits (32 partials a
# finishing thread) below a wave (column_sum.cu's launch_band_kernels): narrower
# bands, down to 128-byte spans, each with more splits. On an H100 or H200 (sm_90,
# 132 multiprocessors): (stored shape, dtype, view, dims, grid).
FEW_BAND_COLUMN_SUMS = [
    # one band of 16 lanes, 128 splits: 2 of 8 lanes, 256 splits (the cap; a wave of
    # 4 blocks an SM would take 264)
    ((100, 2048, 64), torch.float32, lambda x: x[..., :60], [0, 1], [2, 256]),
    # 8 bands of 32 lanes, 64 splits: 16 of 16 lanes, 33 splits (a wave of 4 blocks
    # an SM)
    ((16384, 1000), torch.float32, lambda x: x, [0], [16, 33]),
    # off-boundary vectors (which the routing takes in these bands, not a column a
    # thread): one band of 16 lanes, 128 splits: 2 of 8 lanes, 198 splits (a wave of
    # 3 blocks an SM)
    ((100, 2048, 64), torch.float32, lambda x: x[..., :63], [0, 1], [2, 198]),
]


@requires_cuda
@pytest.mark.parametrize(
    ("shape", "dtype", "view", "dims", "grid"),
    FEW_BAND_COLUMN_SUMS,
    ids=["one band", "eight bands", "one band off the vector boundaries"],
)
def test_a_long_column_sum_over_few_bands_narrows_them_for_more_splits(
    shape, dtype, view, dims, grid, tmp_path, seed
):
    x = view(random_shaped(shape, dtype, "cuda"))
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, dims), tmp_path / "t.json")
    if is_sm90_of_132_sms(x.device):
        assert "column_sum_kernel" in kernels[0][0], kernels
        assert_band_finish(kernels, dtype)
        assert column_kernel_arguments(kernels[0][0])[0] == elements_per_vector(dtype), kernels
        assert kernels[0][1][:2] == grid, kernels
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, dims), x, dims, False, message=f"{seed=}")


# Split column sums finished through L2 (column_sum.cu's launch_band_kernels):
# narrower bands, down to 256-byte spans, while a thread keeps its rounds of loads
# and a finishing thread makes fewer round trips of partial loads. On an H100 or
# H200 (sm_90, 132 multiprocessors; the off-boundary kernel's wave is 3 blocks an
# SM): (shape, dtype, grid).
SHORTER_FINISH_COLUMN_SUMS = [
    # 8 bands of 32 lanes, 49 splits (11 rounds, 4 trips): 16 of 16 lanes, 24 splits
    # (11 rounds, 1 trip)
    ((16384, 1001), torch.float32, [16, 24]),
    # 16 bands of 32 lanes, 24 splits (22 rounds, 3 trips): 32 of 16, 12 (1 trip)
    ((16384, 4095), torch.float16, [32, 12]),
    # 197 bands of 32 lanes, 2 splits (1 trip): 393 of 16 lanes, one split (none)
    ((2048, 50257), torch.bfloat16, [393, 1]),
]


@requires_cuda
@pytest.mark.parametrize(
    ("shape", "dtype", "grid"),
    SHORTER_FINISH_COLUMN_SUMS,
    ids=[f"{rows}x{columns}-{dtype}" for (rows, columns), dtype, _ in SHORTER_FINISH_COLUMN_SUMS],
)
def test_a_split_column_sum_through_l2_narrows_bands_for_a_shorter_finish(
    shape, dtype, grid, tmp_path, seed
):
    x = random_shaped(shape, dtype, "cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [0]), tmp_path / "t.json")
    if is_sm90_of_132_sms(x.device):
        assert len(kernels) == 1 and "column_sum_kernel" in kernels[0][0], kernels
        vector_kernel = (elements_per_vector(dtype), True)
        assert column_kernel_arguments(kernels[0][0])[:2] == vector_kernel, kernels
        assert kernels[0][1][:2] == grid, kernels
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [0]), x, [0], False, message=f"{seed=}")


# The dense-row kernels' shapes as their names show them (row_sum.cu's DenseShape):
# 128-thread blocks of a row a warp; 512-, 256-, 128- and 64-thread blocks of a row a
# block (512 threads of 2 loads, or of 4 for fewer rows than SMs, from half as many;
# 256 threads of 4 loads, or of 8 for 1-3 rows an SM of 2 rounds or more; rows of
# exactly a 256-thread round in 512 threads of 2 loads at 32 registers).
WARP_A_ROW = ("DenseShape<128, 32,", 128)
LONG_BLOCK_A_ROW = ("DenseShape<512, 512, 2, 64>", 512)
SHALLOW_WIDE_BLOCK_A_ROW = ("DenseShape<512, 512, 2, 32>", 512)
DEEP_BLOCK_A_ROW = ("DenseShape<512, 512, 4,", 512)
WIDE_BLOCK_A_ROW = ("DenseShape<256, 256, 4,", 256)
WIDE_DEEP_BLOCK_A_ROW = ("DenseShape<256, 256, 8,", 256)
BLOCK_A_ROW = ("DenseShape<128, 128,", 128)
HALF_BLOCK_A_ROW = ("DenseShape<64, 64,", 64)


# A block a row: a row of at most one round of whole vectors from a 16-byte
# boundary takes the aligned twin of the dense-row kernel.
ALIGNED = "::aligned_round_row_kernel<"
DENSE = "::dense_row_kernel<"


@requires_cuda
@pytest.mark.parametrize(
    ("rows_per_sm", "row_length", "dtype", "shape", "kernel", "grid_per_sm"),
    [(64, 1000, torch.float32, WARP_A_ROW, DENSE, 8),
     (64, 1020, torch.float32, WARP_A_ROW, DENSE, 8),
     (16, 1000, torch.float32, WARP_A_ROW, DENSE, 4),
     (4, 1000, torch.float32, WARP_A_ROW, DENSE, 1),
     (16, 1001, torch.float32, WARP_A_ROW, DENSE, 4),
     (64, 1024, torch.float32, HALF_BLOCK_A_ROW, ALIGNED, 64),
     (16, 1025, torch.float32, HALF_BLOCK_A_ROW, DENSE, 16),
     (8, 1024, torch.float32, WIDE_BLOCK_A_ROW, ALIGNED, 8),
     (64, 2044, torch.float32, HALF_BLOCK_A_ROW, DENSE, 64),
     (64, 2048, torch.float32, BLOCK_A_ROW, ALIGNED, 64),
     (64, 4092, torch.float32, BLOCK_A_ROW, DENSE, 64),
     (4, 4092, torch.float32, WIDE_BLOCK_A_ROW, ALIGNED, 4),
     (64, 4096, torch.float32, SHALLOW_WIDE_BLOCK_A_ROW, ALIGNED, 64),
     (64, 4097, torch.float32, WIDE_BLOCK_A_ROW, DENSE, 64),
     (4, 16380, torch.float32, WIDE_BLOCK_A_ROW, DENSE, 4),
     (4, 16384, torch.float32, LONG_BLOCK_A_ROW, DENSE, 4),
     (2, 4096, torch.float32, WIDE_BLOCK_A_ROW, ALIGNED, 2),
     (2, 8188, torch.float32, WIDE_BLOCK_A_ROW, DENSE, 2),
     (2, 16384, torch.float32, WIDE_DEEP_BLOCK_A_ROW, DENSE, 2),
     (1, 8192, torch.float32, WIDE_DEEP_BLOCK_A_ROW, ALIGNED, 1),
     (3, 8192, torch.float32, WIDE_BLOCK_A_ROW, DENSE, 3),
     (64, 2040, torch.bfloat16, WARP_A_ROW, DENSE, 8),
     (64, 4088, torch.bfloat16, HALF_BLOCK_A_ROW, DENSE, 64),
     (64, 4096, torch.bfloat16, BLOCK_A_ROW, ALIGNED, 64),
     (64, 8184, torch.bfloat16, BLOCK_A_ROW, DENSE, 64),
     (64, 8192, torch.bfloat16, SHALLOW_WIDE_BLOCK_A_ROW, ALIGNED, 64),
     (8, 32768, torch.bfloat16, LONG_BLOCK_A_ROW, DENSE, 8)],
)  # fmt: skip
def test_dense_rows_take_a_warp_or_a_block_a_row(
    rows_per_sm, row_length, dtype, shape, kernel, grid_per_sm, tmp_path, seed
):
    """Contiguous rows summed over the last dim. Rows that fill a round of a block's
    loads (4 vectors a thread; 2 for 512 threads), with a wave of such blocks of
    them: a block a row, a block for every row, however many waves that takes. 256
    threads where the row fills their round (4,096 float32, 8,192 bfloat16; 4 blocks
    a multiprocessor at float32's 61 registers, 6 at bfloat16's), 512 among those
    where it fills 4 such rounds (16,384, 32,768); else the widest of 128 (2,048,
    4,096; 8 blocks) and 64 threads (1,024, 2,048; 16) that the row fills. Shorter
    rows: with a row for every warp of a wave (8 or 9 blocks of 4 warps a
    multiprocessor), 4-warp blocks of a row a warp, grids of 8 blocks a
    multiprocessor at 64 rows; rows shorter than a 64-thread round take a warp a row
    from a wave of 256-thread blocks of them too (4 a multiprocessor), in one partial
    wave (grids of a block a multiprocessor for every 4 rows). Rows of a 64-thread
    round or more, too few for a wave of any block that their rounds fill: a
    256-thread block a row, given a wave of those, or a row a multiprocessor or more
    of a 256-thread round or more (8 loads a thread, not 4, for 1-3 rows a
    multiprocessor of 2 rounds or more: 8,192 float32). A block a row reads a row of
    at most one round of whole vectors (these rows start on a 16-byte boundary) in the
    aligned twin; a row of exactly the 256-thread round there in 512 threads of 2
    loads (Inductor's shape, 4 blocks a multiprocessor at 32 registers)."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if rows_per_sm * sms <= 64:
        pytest.skip(f"{rows_per_sm * sms} rows go to the contiguous class on {sms} SMs")
    x = torch.randn(rows_per_sm * sms, row_length, device="cuda").to(dtype)
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "t.json")
    name, threads = shape
    assert len(kernels) == 1 and kernel in kernels[0][0], kernels
    assert name in kernels[0][0], kernels
    assert kernels[0][1][0] == grid_per_sm * sms and kernels[0][2][0] == threads, kernels
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [1]), x, [1], False, message="dense rows")


# The contiguous class's kernels, which take up to 64 long rows, and up to a row an SM
# of 4 MB or more (layout.cpp).
CONTIGUOUS_CLASS = ("one_block_sum_kernel", "contiguous_sum_kernel", "cluster_sum_kernel")


@requires_cuda
@pytest.mark.parametrize(
    ("rows_per_sm", "extra_rows", "length"), [(1, -1, 4096), (2, 0, 4092)], ids=str
)
def test_long_rows_short_of_a_block_a_row_take_the_split_kernel(
    rows_per_sm, extra_rows, length, tmp_path, seed
):
    """Dense rows short of a wave of 256-thread blocks take a block a row from one
    row a multiprocessor, each of a round (1,024 vectors) or more. One row fewer, of
    less than a 512-thread block's round of 4 loads (4,096 float32), or rows one
    vector short of a round (4,092 float32, 2 an SM): the split kernel (the
    contiguous class where that is 64 rows or fewer)."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    x = torch.randn(rows_per_sm * sms + extra_rows, length, device="cuda")
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "t.json")
    expected = ("row_sum_kernel",) if x.shape[0] > 64 else CONTIGUOUS_CLASS
    assert len(kernels) == 1 and any(name in kernels[0][0] for name in expected), kernels
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [1]), x, [1], False, message="split")


@requires_cuda
@pytest.mark.parametrize(
    ("half_an_sm", "length", "dtype", "kernel"),
    [(True, 8192, torch.float32, ALIGNED),
     (True, 8193, torch.float32, DENSE),
     (True, 32768, torch.float32, DENSE),
     (True, 16384, torch.bfloat16, ALIGNED),
     (True, 8188, torch.float32, None),
     (False, 32768, torch.float32, None)],
    ids=str,
)  # fmt: skip
def test_long_rows_from_half_an_sm_take_a_512_thread_block_a_row(
    half_an_sm, length, dtype, kernel, tmp_path, seed
):
    """Dense rows fewer than the multiprocessors, from half as many (and more than
    the contiguous class's 64), each a round of 512 threads of 4 loads or more
    (2,048 vectors: 8,192 float32, 16,384 bfloat16): a 512-thread block of 4 loads a
    row, the aligned twin for rows of one round of whole vectors. Rows one vector
    short of that round (8,188 float32), or one row fewer than half the
    multiprocessors: the split kernel."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = max((sms + 1) // 2, 65) if half_an_sm else (sms + 1) // 2 - 1
    if rows <= 64 or rows >= sms:
        pytest.skip(f"{rows} rows are not between 65 and fewer than half of {sms} SMs")
    x = torch.randn(rows, length, device="cuda").to(dtype)
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "t.json")
    assert len(kernels) == 1, kernels
    if kernel is None:
        assert "row_sum_kernel" in kernels[0][0], kernels
    else:
        name, threads = DEEP_BLOCK_A_ROW
        assert kernel in kernels[0][0] and name in kernels[0][0], kernels
        assert kernels[0][1][0] == rows and kernels[0][2][0] == threads, kernels
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [1]), x, [1], False, message="deep")


@requires_cuda
def test_a_row_start_off_16_bytes_keeps_the_dense_row_kernel(tmp_path, seed):
    """Rows of whole vectors at a whole-vector stride, starting 4 bytes into their
    allocation: a block a row (64 threads at 20 rows a multiprocessor of 1,024
    float32) in dense_row_kernel, with a scalar head and tail, not the aligned twin."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = 20 * sms
    x = torch.randn(rows * 1024 + 1, device="cuda")[1:].view(rows, 1024)
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "t.json")
    assert len(kernels) == 1 and DENSE in kernels[0][0], kernels
    assert HALF_BLOCK_A_ROW[0] in kernels[0][0] and kernels[0][1][0] == rows, kernels
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [1]), x, [1], False, message="off 16 B")


@requires_cuda
@pytest.mark.parametrize("rows", [3, 65])
def test_a_few_long_rows_are_contiguous_sums_side_by_side(rows, tmp_path):
    """Up to 64 long rows: one contiguous-class launch whose grid has a row per y
    (a row's 9 chunks are a cluster where the GPU runs clusters of 9 or more);
    one row more: the row class (its split kernel, or a block a row where 65 rows
    are half a row a multiprocessor or more), these rows being shorter than the
    4 MB that takes up to a row an SM to the contiguous class."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    x = torch.randn(rows, 70001, device="cuda")
    launched = launched_kernels(
        lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "trace.json"
    )
    if rows <= 64:
        kernels = ("contiguous_sum_kernel", "cluster_sum_kernel")
    else:
        kernels = ("row_sum_kernel",) if 2 * rows < sms else (DENSE,)
    assert len(launched) == 1 and any(name in launched[0][0] for name in kernels), launched
    if rows <= 64:
        assert launched[0][1][1] == rows, launched


@requires_cuda
@pytest.mark.parametrize(
    ("rows", "length", "dtype", "contiguous"),
    [("sms", 2**20, torch.float32, True),
     (65, 2**21, torch.bfloat16, True),
     (65, 2**20 - 1, torch.float32, False),
     ("sms + 1", 2**20, torch.float32, False)],
    ids=str,
)  # fmt: skip
def test_long_rows_up_to_one_an_sm_are_contiguous_sums_side_by_side(
    rows, length, dtype, contiguous, tmp_path, seed
):
    """Rows of 4 MB or more (2^20 float32, 2^21 bfloat16), no more of them than
    multiprocessors: the contiguous class's one-wave split, a row per y of its grid.
    One element shorter, or one row more: the row class."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if isinstance(rows, int) and rows > sms:
        pytest.skip(f"{rows} rows are more than the {sms} SMs")
    rows = {"sms": sms, "sms + 1": sms + 1}.get(rows, rows)
    if rows <= 64:
        pytest.skip(f"{rows} rows go to the contiguous class on {sms} SMs at any length")
    x = torch.randn(rows, length, device="cuda").to(dtype)
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "t.json")
    assert len(launched) == 1, launched
    if contiguous:
        assert "contiguous_sum_kernel" in launched[0][0] and launched[0][1][1] == rows, launched
    else:
        assert not any(name in launched[0][0] for name in CONTIGUOUS_CLASS), launched
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [1]), x, [1], False, message="long rows")


@requires_cuda
@pytest.mark.parametrize(
    ("rows_per_sm", "shape", "grid_per_sm"),
    [(64, WARP_A_ROW, 8), (16, WIDE_BLOCK_A_ROW, 4), (2, None, None)],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32], ids=str)
def test_full_sums_of_row_slices_read_a_row_a_warp_or_a_block(
    rows_per_sm, shape, grid_per_sm, dtype, tmp_path, seed
):
    """x[::2, 1:]: rows one stride apart, off a vector boundary, summed to one
    output. With a row for every warp of a wave (8 or 9 blocks of 4 warps a
    multiprocessor), 4-warp blocks of a row a warp, 2 rows each; with a row for
    every block of a wave (4 blocks of 256 threads a multiprocessor), a block a row,
    4 each; with fewer, the row class's split kernel. Rows of 4,500 elements: more
    than one round of loads for a warp and a block."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    matrix = random_tensor(2 * rows_per_sm * sms * 4501, dtype, "cuda")
    x = matrix.view(2 * rows_per_sm * sms, 4501)[::2, 1:]
    kernels = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x), tmp_path / "trace.json")
    assert len(kernels) == 1, kernels
    if shape is None:
        assert "row_sum_kernel" in kernels[0][0], kernels
    else:
        name, threads = shape
        assert "dense_rows_total_kernel<" in kernels[0][0] and name in kernels[0][0], kernels
        assert (kernels[0][1][0], kernels[0][2][0]) == (grid_per_sm * sms, threads), kernels
    assert_close_to_reference(torch.ops.reduce_opt.sum_v7(x), x, f"{rows_per_sm} rows an SM")


def interleaved_round_loads(name):
    """interleaved_column_kernel's loads a thread a round (kRoundLoads), its last
    template argument, as the profiler prints its name."""
    match = re.search(r"interleaved_column_kernel<[^(]*, (?:true|false), (\d+)>", name)
    assert match, name
    return int(match[1])


@requires_cuda
@pytest.mark.parametrize(
    ("shape", "dtype", "element_offset", "interleaved"),
    [
        ((10**6, 3), torch.float32, 0, True),
        ((10**6, 3), torch.bfloat16, 0, True),
        ((20001, 32), torch.float32, 1, True),
        ((20001, 32), torch.float32, 0, False),
        ((10**6, 3), torch.int16, 0, True),
        ((70001, 31), torch.int8, 0, True),
        ((70001, 31), torch.uint8, 0, True),
        ((1000001, 5), torch.bool, 1, True),
        ((20001, 31), torch.int8, 0, False),
        ((20001, 17), torch.int8, 0, False),
        ((20001, 9), torch.int8, 0, False),
        ((20001, 9), torch.int16, 0, True),
        ((30001, 13), torch.int8, 0, True),
        ((25001, 11), torch.bool, 0, True),
        ((30001, 21), torch.int16, 0, True),
        ((20001, 27), torch.int16, 0, False),
        ((20001, 17), torch.int16, 0, False),
        ((342, 3), torch.float32, 1, True),
        ((70001, 24), torch.int8, 0, True),
        ((20001, 16), torch.int8, 0, True),
        ((20001, 8), torch.int16, 0, True),
        ((30001, 8), torch.uint8, 0, True),
        ((20001, 9), torch.float16, 0, True),
        ((5001, 16), torch.int8, 0, False),
        ((20001, 32), torch.int16, 0, False),
        ((50001, 16), torch.int16, 0, True),
        ((70001, 32), torch.int16, 1, True),
        ((1001, 2), torch.bfloat16, 0, False),
        ((1000001, 33), torch.float16, 0, True),
        ((600001, 47), torch.bfloat16, 1, True),
        ((50001, 33), torch.bfloat16, 0, True),
        ((300001, 33), torch.float64, 0, True),
        ((100001, 41), torch.float32, 0, True),
        ((200001, 64), torch.float32, 1, True),
        ((100001, 47), torch.float64, 0, True),
        ((100001, 63), torch.float64, 0, True),
        ((300001, 47), torch.float64, 0, True),
        ((300001, 63), torch.float64, 0, True),
        ((340001, 63), torch.float64, 0, True),
        ((360001, 63), torch.float64, 0, False),
        ((400001, 47), torch.float64, 0, True),
        ((400001, 57), torch.float64, 0, True),
        ((450001, 57), torch.float64, 0, False),
        ((400001, 56), torch.float64, 1, True),
        ((25001, 33), torch.float64, 0, True),
        ((20001, 33), torch.float16, 0, True),
        ((20001, 47), torch.bfloat16, 0, True),
        ((20001, 33), torch.float32, 0, True),
        ((15001, 33), torch.float16, 0, False),
        ((10001, 47), torch.float32, 0, True),
        ((10001, 33), torch.float32, 0, True),
        ((5001, 33), torch.float32, 0, False),
        ((15001, 33), torch.float64, 0, True),
        ((7001, 33), torch.float64, 0, False),
        ((50001, 63), torch.float64, 0, True),
        ((20001, 47), torch.float64, 0, True),
        ((30001, 63), torch.float64, 0, True),
        ((150001, 64), torch.float64, 1, True),
        ((30001, 64), torch.float16, 0, True),
        ((50001, 36), torch.float32, 0, True),
        ((10001, 36), torch.float32, 0, True),
        ((5001, 64), torch.float32, 0, False),
        ((10001, 40), torch.bfloat16, 0, True),
        ((20000, 64), torch.float32, 0, True),
        ((30001, 34), torch.float64, 0, False),
        ((1000001, 65), torch.float16, 1, True),
        ((1000001, 33), torch.int32, 0, True),
        ((20001, 66), torch.float32, 0, True),
        ((12001, 127), torch.float16, 0, True),
        ((20001, 68), torch.float32, 0, True),
        ((12001, 67), torch.int32, 0, True),
        ((100001, 41), torch.int64, 0, True),
        ((200001, 63), torch.int8, 0, True),
        ((100001, 127), torch.bool, 0, True),
        ((20001, 33), torch.int16, 0, True),
        ((20001, 33), torch.int8, 0, True),
        ((100001, 33), torch.uint8, 0, True),
        ((12001, 127), torch.float64, 0, False),
        ((300001, 128), torch.float32, 0, False),
        ((100001, 100), torch.int32, 0, False),
        ((3001, 66), torch.float32, 0, False),
        ((1000001, 5), torch.float16, 0, True),
        ((200001, 9), torch.float16, 0, True),
        ((5001, 13), torch.float32, 0, False),
        ((5001, 31), torch.bfloat16, 0, False),
        ((3001, 31), torch.float32, 0, False),
        ((30001, 17), torch.float32, 0, True),
        ((30001, 9), torch.float16, 0, True),
        ((8001, 31), torch.float64, 0, True),
        ((7001, 15), torch.float64, 0, False),
        ((8001, 13), torch.float64, 0, True),
        ((10001, 9), torch.int64, 0, True),
        ((24001, 31), torch.float64, 0, True),
        ((30001, 31), torch.float64, 0, True),
        ((25001, 17), torch.int64, 0, True),
        ((50001, 31), torch.float64, 0, True),
        ((20001, 32), torch.float64, 1, True),
        ((16624, 17), torch.float64, 0, True),
        ((16625, 17), torch.float64, 0, True),
        ((71873, 31), torch.float64, 0, True),
        ((60001, 31), torch.float64, 0, True),
        ((60001, 31), torch.int64, 0, True),
        ((40001, 31), torch.float64, 0, True),
        ((25001, 41), torch.float64, 0, True),
        ((20001, 55), torch.float64, 0, True),
        ((10001, 63), torch.float64, 0, True),
        ((89840, 31), torch.float64, 0, True),
        ((89841, 31), torch.float64, 0, True),
        ((100001, 31), torch.int64, 0, True),
        ((50001, 55), torch.float64, 0, True),
    ],
    ids=str,
)
def test_interleaved_columns_read_as_one_run_of_vectors(
    shape, dtype, element_offset, interleaved, seed, tmp_path
):
    """Rows of a few columns back to back, off the vector boundaries (or of 1- and 2-byte
    integers), read as one run of 16-byte vectors (interleaved_column_sum.cu): 3, 5 and 9
    columns, and 32 from a span an element in. Past 32 columns, up to 128 columns (64 of 8-byte
    types; not fp64 12001 rows of 127) where a wave's threads (135k on a 132-SM GPU) have enough
    elements each: 2.4 for 4- and 8-byte columns off the vector boundary (2.4 at 10001 rows of
    33, 3.5 at 10001 of 47, fp32 9.8 at 20001 of 66, not 1.5 at 3001 of 66) and rows on it
    (fp32 2.7 at 10001 rows of 36, not 2.37 at 5001 of 64; bf16 3.0 at 10001 of 40), 4.5 for
    1- and 2-byte columns off it (4.9 at fp16 20001 rows of 33 and int16 20001 of 33); integers
    too (int32 1000001 rows of 33, 12001 of 67, int64 100001 of 41, int8 200001 of 63, bool
    100001 of 127); where the held partials allow
    3/8 of a wave of blocks (198 of 528; 8448 8-byte partials: 41 columns, not 47, 63 or 64;
    16896 4-byte ones: fp16 1000001x65 an element in, 259 blocks),
    or, in one span, fewer blocks leave 40 rounds of the run's loads a thread or fewer (fp64
    20001x47 2.6 rounds of 4; 8 past 5 rounds of 4: 30001x63 3.4, 50001x63 5.7, 100001x47
    6.4, 100001x63 11.5, 150001x64 17.8, 300001x47 19.2, 300001x63 34.4, 340001x63 39.0,
    400001x57 37.6; not 360001x63 41.3, 450001x57 42.3; other types 20 rounds: bool
    100001x127 12.0 in 66 blocks; not int32 100001x100 29.1 in 84, fp32 300001x128 35.5 in 132)
    or are 9/8 of the SMs or more (149: fp64 400001x47 in 179 blocks, 400001x56 an element in in
    150; not 450001x57 in 148); and 33-128 1- to 4-byte
    columns of one span on the vector boundary (64 fp16, 36, 64 and 68 fp32), whose columns a
    second launch adds, a warp a column; 1- and 2-byte integers up to 32
    columns (their threads sum in int32), their rows on the vector boundary too (int8 70001 rows of
    24, int16 50001 of 16). From 4 to 32 columns, not those that a column a thread reads in
    clusters: of 1- and 2-byte integers off the boundary, those whose clusters give a thread up to 2
    rounds of the cluster kernel's loads, or 3 for 1-byte (int8 20001 rows of 9, 17 and 31) or in a
    quarter of the SMs (int16 20001 rows of 17 and 27, 40 and 56 blocks), while int16 20001 rows of
    9 (3 rounds in 24 blocks), int8 30001 of 13, bool 25001 of 11 and int16 30001 of 21 (4 rounds,
    the last in 48 blocks) take the run; on it, those whose clusters give a thread up to 2 rounds of
    the cluster kernel's loads (int8 5001 rows of 16), or 3 in a quarter of the SMs (int16 20001 of
    32, 64 blocks), while int8 20001 of 16 (32 blocks) take the run; of the other types, those whose
    clusters give a thread up to 2 rounds of loads (fp32 5001 rows of 13 and 3001 of 31, bf16 5001
    of 31) or fill half the SMs, 8-byte ones only where they fill under half the SMs with up to 7
    rows a thread (fp64 7001 rows of 15; not 8001 of 13, int64 10001 of 9) and the run would not
    read them in one round of 8 loads a thread (not fp64 8001 rows of 31, 128 cluster blocks: the
    run's 122 blocks of 4 loads; nor fp64 16625 rows of 17, 72: 138 blocks of 4, as the stride of 69
    blocks of 8 falls 8 vectors short of the span, which 16624 rows take), while fp32 30001 rows of
    17, fp16 30001 of 9 and fp32 20001 of 32 an element in (up to 4 rounds in 40, 24 and 64 blocks)
    stay in the run; asserted on sm_90 with 132 SMs, as the clusters' capacity decides. A block per
    round of 4 loads a thread, or of 2 where blocks of 4 would fill under a quarter of the SMs (int8
    20001 rows of 16: 40 blocks, not 20; int16 20001 of 8: 40; uint8 30001 of 8: 30; fp16 20001 of
    9: 44), or of 8 where blocks of 4 would fill every SM, for 1- to 4-byte elements, in one round a
    thread where a wave of those blocks (2 or 3 an SM, by their registers) holds it (fp32 20001 rows
    of 32 an element in: 79 blocks, not 157; int8 70001 of 31: 67, not 133), else in two blocks an
    SM (fp32 100001 rows of 41: 264); for 8-byte elements, in one round for up to 32 columns (fp64
    30001 rows of 31: 228 blocks, not 272 of 4 loads), else in two blocks an SM where blocks of 4
    would take more than 5 rounds, counted in their threads (int64 100001 rows of 31, fp64 30001
    of 63, 50001 of 55; 300001 of 33 in 256 blocks, the held partials' cap; not fp64 89840 or 89841
    rows of 31, 5 rounds and, by the stride, 15 vectors for 89841, nor 71873 of 31, 50001 of 31 or
    20001 of 47), else of 5 loads where those blocks' threads take fewer rounds of 5 than of 4 (fp64
    89840 and 89841 rows of 31, 40001 and 60001, int64 60001, fp64 25001 of 41, 20001 of 55, 10001
    of 63; not fp64 71873 of 31, 50001 of 31 nor 20001 of 47);
    the shortest span, 342 fp32 rows of 3 an element in (255 vectors after the head of 3), one block
    whose last thread starts past the span. Not there: 32 fp32 columns from a vector boundary (the
    band kernels' vectors), spans under 256 vectors (the row class for 2 or 3 columns), and past 32
    columns short sums (16-bit 3.7 elements a thread at 15001 rows of 33, fp32 1.2 at 5001, fp64 1.7
    at 7001), 8-byte columns on the vector boundary, and 129 columns. Past 32 columns, the
    routing is asserted on sm_90 with 132 SMs, where it was measured; there too, past 8 columns (the
    last block's warps: 9, 32 and more) of a warp's splits or more a second launch adds the splits,
    a warp a column, and otherwise (3, 5 and 8 columns) the last block does (9-31 columns of fewer
    splits: test_dims' 2x20001x9 fp16 over dim 1)."""
    numel = math.prod(shape)
    x = random_tensor(numel + element_offset, dtype, "cuda")[element_offset:].view(shape)
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [0]), tmp_path / "t.json")
    columns = shape[1]
    # From 4 to 32 columns, the routes of the sums the run may take hang on the
    # clusters' capacity: rows off the vector boundary, and 1- and 2-byte integers.
    aligned = element_offset == 0 and columns % min(elements_per_vector(dtype), 8) == 0
    narrow_integer = sums_positions_in_int32(dtype)
    routed_by_clusters = 4 <= columns <= 32 and (narrow_integer or not aligned)
    if (columns <= 32 and not routed_by_clusters) or is_sm90_of_132_sms(x.device):
        assert ("interleaved_column_kernel" in launched[0][0]) == interleaved, launched
    if interleaved and is_sm90_of_132_sms(x.device):
        # A block per 4 vectors a thread of a span's 16-byte vectors; per 2 where
        # blocks of 4 would fill under a quarter of the SMs; per 8 where they would fill
        # every SM, for elements of up to 4 bytes: one round a thread where a wave of
        # those blocks holds it (2 or 3 an SM, by the registers ptxas gives them), else
        # two blocks an SM.
        vectors = numel // elements_per_vector(dtype)
        # The held partials (8448 8-byte sums, integers' too, or 16896 4-byte ones)
        # cap the splits: past 64 columns and for integers past 32, under 264.
        held = (16896 if dtype.is_floating_point and dtype.itemsize < 8 else 8448) // columns
        splits = min(math.ceil(vectors / (256 * 4)), held)
        if 4 * splits < 132:
            splits = math.ceil(vectors / (256 * 2))
            assert launched[0][1] == [splits, 1, 1], launched
        elif splits >= 132 and dtype.itemsize < 8:
            splits = math.ceil(vectors / (256 * 8))
            grids = {splits} if splits <= 264 else {splits, 264} if splits <= 396 else {264}
            grids = {min(grid, held) for grid in grids}
            assert interleaved_round_loads(launched[0][0]) == 8, launched
            assert launched[0][1][1:] == [1, 1], launched
            assert launched[0][1][0] in grids, launched
            splits = launched[0][1][0]
        elif splits >= 132:
            # 8-byte columns: 8 loads a thread in one round, up to 32 columns, where a
            # wave of those blocks (2 an SM) holds it, their stride (a multiple of the
            # columns' period, in vectors) reaching past the span in 8 loads; else 8 in
            # half a wave (264 blocks, as the 8448 held partials allow) where blocks of
            # 4 (4 an SM, as many as the partials allow) would take more than 5 rounds;
            # else 5 where those blocks' threads take fewer rounds of 5 than of 4; else 4,
            # both in those blocks.
            period = columns // math.gcd(columns, elements_per_vector(dtype))

            def stride(blocks: int) -> int:
                return blocks * 256 - blocks * 256 % period

            long_splits = math.ceil(vectors / (256 * 8))
            one_round = columns <= 32 and long_splits <= 264 and stride(long_splits) * 8 >= vectors
            four_load_splits = min(splits, 528, held)
            # Rounds counted in the blocks' threads, not the stride: a round of a
            # few vectors past the stride does not count.
            many_rounds = math.ceil(vectors / (four_load_splits * 256 * 4)) > 5
            if one_round or many_rounds:
                splits = min(long_splits, 264, held)
            else:
                splits = four_load_splits
            assert launched[0][1] == [splits, 1, 1], launched

            def rounds(loads: int) -> int:
                return math.ceil(vectors / (four_load_splits * 256 * loads))

            loads = 8 if one_round or many_rounds else 5 if rounds(5) < rounds(4) else 4
            assert interleaved_round_loads(launched[0][0]) == loads, launched
        if columns > 8 and splits >= 32:
            assert len(launched) == 2 and "warp_an_output_kernel" in launched[1][0], launched
            assert launched[1][1:] == ([math.ceil(columns / 8), 1, 1], [256, 1, 1]), launched
        else:
            assert len(launched) == 1, launched
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [0]), x, [0], False, message=f"{seed=}")


@requires_cuda
@pytest.mark.parametrize(
    "shape, dtype, loads, grid",
    [
        ((8, 262144, 3), torch.bfloat16, 8, [48, 8, 1]),
        ((64, 20001, 33), torch.float32, 8, [4, 64, 1]),
        ((300, 4001, 3), torch.int16, 8, [1, 300, 1]),
        ((300, 4001, 3), torch.bfloat16, 8, [1, 300, 1]),
        ((384, 2001, 5), torch.float16, 8, [1, 384, 1]),
        ((300, 4001, 3), torch.float32, 4, [1, 300, 1]),
        ((300, 5450, 3), torch.bfloat16, 4, [1, 300, 1]),
        ((4, 10001, 31), torch.float64, 5, [68, 4, 1]),
    ],
    ids=str,
)
def test_interleaved_spans_take_eight_loads_within_a_wave(
    shape, dtype, loads, grid, seed, tmp_path
):
    """Spans of interleaved columns (dim=1) whose blocks of 4 loads a thread fill every SM
    take 8 loads a round where their spans fit a wave of those blocks: 8 spans of 262144
    bf16 rows of 3 in one round a thread (48 splits a span), 64 spans of 20001 fp32 rows of
    33 in half a wave of 4-load blocks (4 a span). Past half a wave of 4-load blocks (264
    spans), spans that one 8-load block reads in one round take it where a wave of those
    blocks holds them (floats, int32 and int16: 396, three an SM; 300 bf16 or int16 spans
    of 1500 vectors, 384 fp16 spans of 1250), and keep 4 loads where they would take more
    rounds (300 fp32 spans of 3000 vectors; 300 bf16 spans of 2043, past a round of 255
    threads' 8 loads, the threads a multiple of the 3 columns) or more than a wave. 8-byte
    spans of 2-5 rounds of 4 loads take 5 where that takes fewer rounds (4 spans of 10001
    fp64 rows of 31: 68 splits a span, the held partials' cap, 3 rounds of 4, 2 of 5).
    Asserted on sm_90 with 132 SMs; the sums must match torch everywhere."""
    x = random_tensor(math.prod(shape), dtype, "cuda").view(shape)
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "t.json")
    if is_sm90_of_132_sms(x.device):
        assert interleaved_round_loads(launched[0][0]) == loads, launched
        assert launched[0][1] == grid, launched
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [1]), x, [1], False, message=f"{seed=}")


# The most vectors a span whose int16 positions interleaved_column_kernel's threads
# sum in int32 (problem.h's interleaved_shape): 128 x (INT32_MAX >> 16).
INT16_INTERLEAVED_VECTORS = 128 * (2**31 - 1 >> 16)


@requires_cuda
@pytest.mark.parametrize("past_the_bound", [False, True], ids=["at", "past"])
def test_interleaved_int16_sums_stop_at_the_int32_bound(past_the_bound, tmp_path, seed):
    """Rows of 3 int16 columns back to back, 8 elements a vector: a span of exactly
    128 x (INT32_MAX >> 16) whole vectors takes the interleaved run; one vector more
    (2 rows more), the row class, as before 1- and 2-byte integers interleaved. This
    tests the routing at the bound and the sums there (elements near -32768); that
    int32 position sums cannot wrap within it rests on problem.h's arithmetic (a
    launch of this size gives each thread ~30 elements a position)."""
    at_the_bound = -(-INT16_INTERLEAVED_VECTORS * 8 // 3)
    rows = at_the_bound + (2 if past_the_bound else 0)
    assert rows * 3 // 8 == INT16_INTERLEAVED_VECTORS + past_the_bound
    x = torch.randint(-32768, -32000, (rows, 3), dtype=torch.int16, device="cuda")
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [0]), tmp_path / "t.json")
    assert ("interleaved_column_kernel" in launched[0][0]) != past_the_bound, launched
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [0]), x, [0], False, message=f"{seed=}")


# The most rows of 3 int16 columns a span whose one block's column sums (its 256
# threads' 8-element vectors, 255 vectors apart, and 16 edge elements), times 32768,
# stay within INT32_MAX: 31 vectors a thread (interleaved_column_sum.cu's
# shares_fit_position_type). 21082 rows: most spans start off the vector boundary, so
# that the head and tail elements are added in int32 too.
INT16_SHARES_IN_INT32_ROWS = (31 * 255 * 8 + 7) // 3


@requires_cuda
@pytest.mark.parametrize("rows", [INT16_SHARES_IN_INT32_ROWS, 4 * INT16_SHARES_IN_INT32_ROWS + 1])
def test_interleaved_int16_block_sums_near_the_int32_bound(rows, tmp_path, seed):
    """1024 spans of rows of 3 int16 columns (dim=1), one block a span: at the most
    rows whose block's column sums the warps add in int32, and past 4 times that, where a
    column's sum of elements near -32768 (about -2.7e9) would wrap in int32: the warps
    must add it in int64 there (a row past 4 times, so that 7 spans in 8 start off the
    vector boundary and every span has a head or a tail, added in int64 too). Both must
    match torch."""
    x = torch.randint(-32768, -32000, (1024, rows, 3), dtype=torch.int16, device="cuda")
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, [1]), tmp_path / "t.json")
    assert "interleaved_column_kernel" in launched[0][0], launched
    assert launched[0][1] == [1, 1024, 1], launched
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, [1]), x, [1], False, message=f"{seed=}")


def assert_exact_back_to_back_sums(shape, stream, tmp_path):
    """Sums over dim 0 of three inputs of `shape`, twice in turn on `stream` with no sync
    between them, so that each call's partials land where the call before left its own,
    which a second launch reading them before the first kernel's end would add. fp32
    integers from -8 to 8: every partial sum is exact, so each result must equal torch's
    float64 sum. Returns the kernels of one more call on that stream."""
    inputs = [torch.randint(-8, 9, shape, device="cuda").to(torch.float32) for _ in range(3)]
    expected = [x.sum(0, dtype=torch.float64).to(torch.float32) for x in inputs]
    with torch.cuda.stream(stream):
        stream.wait_stream(torch.cuda.default_stream())
        results = [torch.ops.reduce_opt.sum_v7(x, [0]) for x in inputs + inputs]
        launched = launched_kernels(
            lambda: torch.ops.reduce_opt.sum_v7(inputs[0], [0]), tmp_path / "t.json"
        )
    stream.synchronize()
    for index, (result, reference) in enumerate(zip(results, expected + expected, strict=True)):
        assert torch.equal(result, reference), index
    return launched


@requires_cuda
def test_wide_interleaved_finish_waits_for_the_read(seed, tmp_path):
    """The wide interleaved run's second launch (warp_an_output_kernel) may start
    before the read kernel ends (programmatic dependent launch, Hopper and newer) and
    waits for it: 100001 rows of 41 columns, assert_exact_back_to_back_sums."""
    launched = assert_exact_back_to_back_sums((100001, 41), torch.cuda.current_stream(), tmp_path)
    if is_sm90_of_132_sms(torch.device("cuda")):
        assert "interleaved_column_kernel" in launched[0][0], launched
        assert len(launched) == 2 and "warp_an_output_kernel" in launched[1][0], launched


@requires_cuda
@pytest.mark.parametrize("external", [False, True], ids=["default stream", "external stream"])
def test_band_partials_finish_waits_for_the_read(external, seed, tmp_path):
    """A split sum of vector bands on the vector boundary (fp32 20001 rows of 32
    columns, through L2) finishes in a second launch, column_partials_kernel, on
    Hopper and newer (and on an external stream, which has no counters, everywhere);
    it may start before the band kernel ends (programmatic dependent launch) and waits
    for it: assert_exact_back_to_back_sums."""
    from contextlib import nullcontext

    from raw_streams import external_stream

    with external_stream() if external else nullcontext(torch.cuda.current_stream()) as stream:
        launched = assert_exact_back_to_back_sums((20001, 32), stream, tmp_path)
    if is_sm90_of_132_sms(torch.device("cuda")):
        assert "column_sum_kernel" in launched[0][0], launched
        assert len(launched) == 2 and "column_partials_kernel" in launched[1][0], launched


def column_kernel_arguments(name):
    """The template arguments of a column_sum.cu band kernel's name after its
    types: (kColumns, kOffBoundary, kFlat), as the profiler prints them."""
    match = re.search(
        r"column_(?:sum|cluster)_kernel<[^(]*, (\d+), (true|false), (true|false)>", name
    )
    assert match, name
    return int(match[1]), match[2] == "true", match[3] == "true"


def assert_band_finish(kernels, dtype):
    """That a band kernel's launch (kernels[0]) finishes its splits where column_sum.cu's
    launch_band_kernels does: column_sum_kernel's split vectors of 2 bytes or more on
    the vector boundary in a second launch on Hopper and newer (column_partials_kernel,
    a block a band, started early); clusters and other bands in the one launch."""
    columns, off_boundary, _ = column_kernel_arguments(kernels[0][0])
    split = "column_sum_kernel" in kernels[0][0] and kernels[0][1][1] > 1
    starts_early = torch.cuda.get_device_capability()[0] >= 9
    if split and starts_early and columns > 1 and not off_boundary and dtype.itemsize >= 2:
        assert len(kernels) == 2 and "column_partials_kernel" in kernels[1][0], kernels
        assert kernels[1][1] == [kernels[0][1][0], 1, 1], kernels
    else:
        assert len(kernels) == 1, kernels


@requires_cuda
@pytest.mark.parametrize(
    ("shape", "dtype", "view", "dims", "columns", "off_boundary"),
    [
        ((8192, 1001), torch.float32, lambda x: x, [0], 4, True),
        ((2048, 4096), torch.bfloat16, lambda x: x[:, 1:], [0], 8, True),
        ((2048, 4096), torch.float32, lambda x: x, [0], 4, False),
        ((8, 64, 129), torch.float32, lambda x: x[:, :60], [0, 1], 1, False),
        ((1024, 4095), torch.bool, lambda x: x, [0], 1, False),
        ((8192, 1001), torch.int8, lambda x: x, [0], 1, False),
    ],
    ids=[
        "odd columns",
        "from column 1",
        "aligned",
        "few rows of 60 columns",
        "odd bool columns",
        "odd int8 columns",
    ],
)
def test_off_boundary_column_sums_read_vectors(
    shape, dtype, view, dims, columns, off_boundary, seed, tmp_path
):
    """Column sums whose rows start off the vector boundaries read 16-byte vectors
    from each row's boundary (column_sum.cu's band kernels with kOffBoundary)
    where one reduced dim holds the rows, the vectors fill enough of a wave of blocks
    and a column a thread would not take small_sum_bands' clusters (these 8,192 and
    2,048 rows: 2,048 rows of 1,001 fp32 columns would); where they would not (8 x 64
    rows of 60 columns, dims that coalesce into one), and 1-byte columns always, a
    column a thread. Aligned rows keep the plain vector kernels."""
    x = view(random_shaped(shape, dtype, "cuda"))
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, dims), tmp_path / "t.json")
    assert "column_" in launched[0][0], launched
    assert_band_finish(launched, dtype)
    assert column_kernel_arguments(launched[0][0])[:2] == (columns, off_boundary), launched
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, dims), x, dims, False, message=f"{seed=}")


@requires_cuda
@pytest.mark.parametrize(
    ("shape", "dtype", "view", "dims", "off_boundary", "flat"),
    [
        ((3001, 64), torch.float32, lambda x: x, [0], False, True),
        ((64, 300, 64), torch.int16, lambda x: x, [1], False, True),
        ((8192, 1001), torch.float32, lambda x: x, [0], True, True),
        ((6, 8, 20, 64), torch.float32, lambda x: x[::2, ::3], [2], False, False),
        ((64, 10, 64), torch.bfloat16, lambda x: x[::2, ::3], [0, 1], False, False),
        ((4, 3, 2048, 1001), torch.float32, lambda x: x[::2], [2], True, False),
    ],
    ids=[
        "rows",
        "middle dim",
        "odd columns",
        "two outer dims",
        "two reduced dims",
        "odd columns, two outer dims",
    ],
)
def test_column_sums_of_flat_offsets_take_flat_kernels(
    shape, dtype, view, dims, off_boundary, flat, seed, tmp_path
):
    """Column sums over one reduced dim and at most one outer dim take the band
    kernels compiled without the general index (kFlat: every offset a multiply),
    rows on the vector boundaries or off them; sums whose kept or reduced dims do
    not coalesce into one take the general ones. Both give torch.sum's result."""
    x = view(random_shaped(shape, dtype, "cuda"))
    launched = launched_kernels(lambda: torch.ops.reduce_opt.sum_v7(x, dims), tmp_path / "t.json")
    assert_band_finish(launched, dtype)
    assert column_kernel_arguments(launched[0][0])[1:] == (off_boundary, flat), launched
    assert_matches_torch(torch.ops.reduce_opt.sum_v7(x, dims), x, dims, False, message=f"{seed=}")


def kernels_by_case(completed):
    """cluster_free_target.py's printout: {case: names of the kernels it launched}."""
    lines = [json.loads(line) for line in completed.stdout.splitlines() if line.startswith("{")]
    return {line["case"]: line["kernels"] for line in lines}


@requires_cuda
def test_without_clusters_sums_launch_as_on_older_gpus():
    """TORCH_REDUCE_NO_CLUSTERS=1 makes sum_v7 launch as on a GPU without
    thread-block clusters (before Hopper), the only way to run those paths here:
    cluster_free_target.py's sums (full sums of mid sizes, small and split column
    sums) launch no cluster kernel and match torch.sum, and every part of
    sanitizer_target.py (every version, layouts, dims, graphs, many waves) matches
    its references. Without the switch, on Hopper and newer, some of the same sums
    launch clusters: the switch is what took them away."""
    no_clusters = {"TORCH_REDUCE_NO_CLUSTERS": "1"}
    switched = run_python(TESTS_DIR / "cluster_free_target.py", env=no_clusters)
    assert switched.returncode == 0, describe(switched)
    launched = kernels_by_case(switched)
    # Every case printed (the script ran them all) and the profiler saw each launch.
    assert launched and all(launched.values()), describe(switched)
    clustered = [name for names in launched.values() for name in names if "cluster" in name]
    assert not clustered, describe(switched)
    if torch.cuda.get_device_capability() >= (9, 0):
        default = run_python(
            TESTS_DIR / "cluster_free_target.py", env={"TORCH_REDUCE_NO_CLUSTERS": "0"}
        )
        assert default.returncode == 0, describe(default)
        names = [name for names in kernels_by_case(default).values() for name in names]
        assert [name for name in names if "cluster" in name], names
    everything = run_python(TESTS_DIR / "sanitizer_target.py", "--part", "all", env=no_clusters)
    assert everything.returncode == 0, describe(everything)
    assert "sanitizer target: part all ran and matched" in everything.stdout, describe(everything)
