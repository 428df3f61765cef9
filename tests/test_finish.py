"""How sum_v7's split full sums end: in the last block of the one launch, through
mailboxes (one word a block for 4-byte accumulators and for the int64 totals of
32-bit-or-narrower integers, two for other 8-byte ones) or the acq_rel ticket
(grids larger than the mailboxes), on PyTorch's streams and in graphs; in a second
launch on external streams, and for one-row sums past 16x L2 everywhere. Every way
must give the same bits, and each launch must leave its mailboxes empty for the next."""

import time

import pytest
import torch
from conftest import (
    LARGE_CHUNK_BYTES,
    assert_close_to_reference,
    random_tensor,
    requires_cuda,
    skip_unless_free,
)
from raw_streams import external_stream

sum_v7 = torch.ops.reduce_opt.sum_v7

# One element past each launch shape's first size and the mid shape's largest
# grids: one block, a few blocks, a grid per multiprocessor, most of a wave.
SPLIT_SIZES = [2**13 + 1, 2**14 + 3, 2**16, 2**18 - 1, 2**20 + 7, 2**22 - 5, 2**22 + 2**20, 2**24]
FINISH_DTYPES = [torch.float32, torch.bfloat16, torch.float16, torch.float64, torch.int32]


# float32 elements in 527 whole chunks of 2,048 16-byte vectors, 100 vectors and one
# element more: on a 132-SM GPU (H100 SXM, H200) 528 chunks, one wave of the large
# split, whose last block has no whole chunk (it takes its ticket after its partial
# chunk).
ONE_CHUNK_SHORT_OF_A_WAVE = 4 * (527 * 2048) + 4 * 100 + 1


def second_launch_sums(inputs):
    """The sums on an external stream, which finishes every split sum in a second launch."""
    with external_stream() as stream, torch.cuda.stream(stream):
        stream.wait_stream(torch.cuda.default_stream())
        sums = [sum_v7(x) for x in inputs]
        stream.synchronize()
    return sums


@requires_cuda
@pytest.mark.parametrize("dtype", FINISH_DTYPES, ids=str)
def test_one_launch_and_second_launch_give_the_same_bits(dtype, seed):
    inputs = [random_tensor(numel, dtype, "cuda") for numel in SPLIT_SIZES]
    expected = second_launch_sums(inputs)
    for x, want in zip(inputs, expected, strict=True):
        got = sum_v7(x)
        assert_close_to_reference(got, x, f"numel={x.numel()}")
        assert torch.equal(got, want), (x.numel(), got.item(), want.item())


@requires_cuda
@pytest.mark.parametrize("rows_per_sm", [64, 16], ids=["warp-a-row", "block-a-row"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
def test_full_sums_of_row_slices_give_the_same_bits_in_a_second_launch(rows_per_sm, dtype, seed):
    """x[::2, 1:] summed to one output: dense_rows_total_kernel, a warp (128-thread
    blocks) or a 256-thread block a row (test_launch_shapes). Its last block and an
    external stream's second launch must add the block totals in the same order."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    matrix = random_tensor(2 * rows_per_sm * sms * 4501, dtype, "cuda")
    x = matrix.view(2 * rows_per_sm * sms, 4501)[::2, 1:]
    (want,) = second_launch_sums([x])
    got = sum_v7(x)
    assert_close_to_reference(got, x, f"{rows_per_sm} rows an SM")
    assert torch.equal(got, want), (got.item(), want.item())


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32], ids=str)
def test_back_to_back_sums_leave_no_partial_behind(dtype, seed):
    """Sums of decreasing and increasing grids queued without a pause on one stream:
    a mailbox left full by one launch would hand its stale partial to the next."""
    sizes = [2**22 - 5, 2**16, 2**20 + 7, 2**18 - 1, 2**22 + 2**20, 2**14 + 3] * 20
    inputs = [random_tensor(numel, dtype, "cuda") for numel in sizes]
    expected = second_launch_sums(inputs)
    got = [sum_v7(x) for x in inputs]
    for x, g, want in zip(inputs, got, expected, strict=True):
        assert torch.equal(g, want), (x.numel(), g.item(), want.item())


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.int8], ids=str)
@pytest.mark.parametrize("megabytes", [1, 64], ids=["mid", "large"])
def test_integer_block_totals_of_either_sign_past_32_bits(dtype, megabytes, seed):
    """A packed mailbox keeps 63 bits of an int64 block total, bit 62 its sign.
    Runs of 5,000 elements near the type's minimum or maximum, each run's sign at
    random, give block totals of both signs past 32 bits (int32). A lost sign would
    put a negative total 2^63 off, which an even count of them cancels mod 2^64:
    elements of 0 or 1 after 4,096 of the minimum (16 KB at most, in one chunk of
    any shape) give exactly one negative block total (int32: -2^43 and change).
    64 MB takes the large split from the end on an H100 or H200, 1 MB the mid
    split."""
    info = torch.iinfo(dtype)
    numel = megabytes * 2**20 // dtype.itemsize + 5
    noise = torch.randint(0, 100, (numel,), device="cuda")
    runs = torch.randint(0, 2, (numel // 5000 + 1,), device="cuda").bool()
    positive = runs.repeat_interleave(5000)[:numel]
    mixed = torch.where(positive, info.max - noise, info.min + noise).to(dtype)
    one_negative = (noise % 2).to(dtype)
    one_negative[:4096] = info.min
    for x in (mixed, one_negative):
        got = sum_v7(x)
        assert got.item() == int(x.cpu().to(torch.int64).sum()), numel
        assert torch.equal(got, second_launch_sums([x])[0])


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32], ids=str)
def test_graph_replays_with_new_data_give_the_eager_bits(dtype, seed):
    sizes = [2**20 + 7, 2**16, 2**22 - 5, 2**18 - 1]
    inputs = [random_tensor(numel, dtype, "cuda") for numel in sizes]
    for x in inputs:  # the first eager call prepares the graph state
        sum_v7(x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outputs = [sum_v7(x) for x in inputs]
    for _ in range(10):
        for x in inputs:
            x.copy_(random_tensor(x.numel(), dtype, "cuda"))
        graph.replay()
        expected = second_launch_sums(inputs)
        for x, out, want in zip(inputs, outputs, expected, strict=True):
            assert torch.equal(out, want), (x.numel(), out.item(), want.item())


@pytest.mark.large
@requires_cuda
def test_many_wave_sums_give_the_eager_bits_in_graphs_and_on_external_streams(seed):
    """Past 16x L2 a one-row sum reads over many waves and a second launch adds the
    block totals, from the call's scratch memory (a capture's private pool): graph
    replays with new data and an external stream must give the eager bits. 3 chunks
    and 5 elements past the edge: a partial last chunk and a misaligned tail."""
    l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
    numel = (16 * l2_bytes + 3 * LARGE_CHUNK_BYTES) // 4 + 5
    skip_unless_free(4 * 4 * numel)
    x = random_tensor(numel, torch.float32, "cuda")
    eager = sum_v7(x)
    assert_close_to_reference(eager, x)
    assert torch.equal(eager, second_launch_sums([x])[0])
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = sum_v7(x)
    for _ in range(3):
        x.normal_()
        graph.replay()
        assert torch.equal(captured, sum_v7(x)), captured.item()


@requires_cuda
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32], ids=str)
def test_split_sums_beside_a_busy_stream_give_the_same_bits(dtype, seed):
    """Blocks of one-word partials (packed for int32) take their tickets as they start
    their last chunk (mid blocks read one), so the last ticket goes to the last block to
    start it, which may read mailboxes still empty. Matrix products on a second stream
    hold multiprocessors, so that the sums' blocks start in staggered groups; the
    products must still be running when the sums are done. A last block that waited on
    a block that never posts would hang: the sums get a deadline. The first three sizes
    take the mid split (bf16 2^18 would take a cluster on Hopper), 2^24 + 5 the large
    one, read from the end (at most 4x L2), as ONE_CHUNK_SHORT_OF_A_WAVE does at 4-byte
    types; one sum of 5x L2 reads forward."""
    l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
    read_forward = 5 * l2_bytes // dtype.itemsize + 3
    sizes = [2**19 - 1, 2**20 + 7, 2**22 - 5, 2**24 + 5, ONE_CHUNK_SHORT_OF_A_WAVE] * 10
    sizes.append(read_forward)
    inputs = [random_tensor(numel, dtype, "cuda") for numel in sizes]
    expected = second_launch_sums(inputs)
    busy = torch.cuda.Stream()
    busy.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(busy):
        a = torch.randn(4096, 4096, device="cuda")
        for _ in range(8):
            a = a @ a / 64
        products_done = torch.cuda.Event()
        products_done.record()
    got = [sum_v7(x) for x in inputs]
    sums_done = torch.cuda.Event()
    sums_done.record()
    deadline = time.monotonic() + 10
    while not sums_done.query():
        assert time.monotonic() < deadline, "the sums did not finish within 10 s"
        time.sleep(1e-4)
    assert not products_done.query(), "the products ended before the sums: no overlap"
    torch.cuda.synchronize()
    for x, g, want in zip(inputs, got, expected, strict=True):
        assert torch.equal(g, want), (x.numel(), g.item(), want.item())
