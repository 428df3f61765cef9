"""The benchmark's private reference ops (reduce_opt::_cub_sum, _read_roofline)
against float64 / exact references. They have CUDA kernels only."""

import pytest
import torch
from conftest import assert_close_to_reference, random_tensor, requires_cuda

import torch_reduce  # noqa: F401  (registers the ops)

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.int32]
# Around one vector, one block's worth, and big enough for many full waves.
SIZES = [0, 1, 7, 4096 + 3, (1 << 22) + 5]


def test_schemas_are_registered():
    schemas = {str(op._schema) for op in (torch.ops.reduce_opt._cub_sum.default,
                                          torch.ops.reduce_opt._read_roofline.default)}  # fmt: skip
    assert schemas == {
        "reduce_opt::_cub_sum(Tensor self) -> Tensor",
        "reduce_opt::_read_roofline(Tensor self, int blocks_per_sm, int vectors_in_flight)"
        " -> Tensor",
    }


@requires_cuda
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("numel", SIZES)
def test_cub_sum(seed, dtype, numel):
    x = random_tensor(numel, dtype, "cuda")
    assert_close_to_reference(torch.ops.reduce_opt._cub_sum(x), x, f"seed {seed}")


@requires_cuda
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("numel", SIZES)
@pytest.mark.parametrize("offset", [0, 1, 3])  # misaligned data pointers: scalar head and tail
@pytest.mark.parametrize("vectors", [1, 2, 4, 8])
def test_read_roofline_reads_every_element(seed, dtype, numel, offset, vectors):
    x = random_tensor(numel + offset, dtype, "cuda")[offset:]
    partials = torch.ops.reduce_opt._read_roofline(x, 1, vectors)
    sm_count = torch.cuda.get_device_properties(x.device).multi_processor_count
    assert partials.shape == (sm_count,)
    assert partials.dtype == (torch.int64 if dtype == torch.int32 else torch.float32)
    assert_close_to_reference(
        partials.sum().to(torch_reduce.result_dtype(dtype)), x, f"seed {seed}"
    )


@requires_cuda
def test_read_roofline_grid_is_blocks_per_sm_waves():
    x = torch.randn(1 << 16, device="cuda")
    sm_count = torch.cuda.get_device_properties(x.device).multi_processor_count
    for blocks in (1, 2, 4):
        assert torch.ops.reduce_opt._read_roofline(x, blocks, 4).numel() == blocks * sm_count
    with pytest.raises(
        RuntimeError, match="reduce_opt::_read_roofline: blocks_per_sm=1000 does not fit"
    ):
        torch.ops.reduce_opt._read_roofline(x, 1000, 4)
    with pytest.raises(RuntimeError, match="vectors_in_flight must be 1, 2, 4 or 8, got 3"):
        torch.ops.reduce_opt._read_roofline(x, 1, 3)


@requires_cuda
@pytest.mark.parametrize("op", ["_cub_sum", "_read_roofline"])
def test_errors_name_the_op(op):
    args = () if op == "_cub_sum" else (1, 1)
    call = getattr(torch.ops.reduce_opt, op)
    with pytest.raises(RuntimeError, match=f"reduce_opt::{op}: expected a contiguous tensor"):
        call(torch.randn(64, 64, device="cuda").t(), *args)
    with pytest.raises(RuntimeError, match=f"reduce_opt::{op}: unsupported dtype"):
        call(torch.randn(64, device="cuda", dtype=torch.float64), *args)


@requires_cuda
def test_cub_sum_under_graph_capture(seed):
    """Temporary storage comes from the caching allocator on the capture stream."""
    inputs = [random_tensor(1 << 20, torch.float32, "cuda") for _ in range(3)]
    torch.ops.reduce_opt._cub_sum(inputs[0])
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outputs = [torch.ops.reduce_opt._cub_sum(x) for x in inputs]
    for x in inputs:
        x.copy_(random_tensor(x.numel(), x.dtype, "cuda"))
    graph.replay()
    for output, x in zip(outputs, inputs, strict=True):
        assert_close_to_reference(output, x, f"seed {seed}")
