"""The contract of every reduce_opt::sum_vN: torch.sum's result, dtype and special values."""

import pytest
import torch
from conftest import (
    ALL_DTYPES,
    DEVICES,
    FLOAT_DTYPES,
    VERSIONS,
    assert_close_to_reference,
    exact_gpu_sum,
    op,
    random_tensor,
    requires_cuda,
    skip_unless_free,
)

import torch_reduce

SIZES = [0, 1, 2, 31, 255, 256, 257, 511, 513, 1025, 65537, 1000003, 2**24 + 3]


@pytest.mark.parametrize("numel", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_matches_reference(device, version, dtype, numel, seed):
    x = random_tensor(numel, dtype, device)
    assert_close_to_reference(op(version)(x), x, f"seed={seed}")


@pytest.mark.parametrize("numel", SIZES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_integer_valued_floats_sum_exactly(device, version, dtype, numel, seed):
    """Small integers in floating point add without rounding while every partial
    sum stays below 2^24 (float32 accumulation), so the result must be the exact
    sum rounded once to the output dtype: one element dropped or read twice shows,
    at any size, where the error bound of the random-data test is too loose to."""
    values = torch.randint(-8, 9, (numel,), device=device)
    x = values.to(dtype)
    expected = torch.tensor(values.sum().item(), dtype=torch.float64).to(dtype)
    assert op(version)(x).cpu() == expected, f"seed={seed}"


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_positive_data_matches_reference(device, version, dtype, seed):
    # All-positive data makes every partial sum grow, the hard case for rounding.
    x = random_tensor(3_000_017, dtype, device, positive=True)
    assert_close_to_reference(op(version)(x), x, f"seed={seed}")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_convenience_wrapper(device, version, seed):
    x = random_tensor(4099, torch.float32, device)
    assert torch.equal(torch_reduce.sum(x, version=version), op(version)(x))
    with pytest.raises(ValueError, match="version"):
        torch_reduce.sum(x, version=8)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_special_values(device, version, dtype, seed):
    for position in (0, 5000, 9999):
        x = random_tensor(10_000, dtype, device)
        x[position] = float("nan")
        assert op(version)(x).isnan().item(), f"NaN at {position}"
    x = random_tensor(10_000, dtype, device)
    x[1234] = float("inf")
    assert op(version)(x).item() == float("inf")
    x[7777] = float("-inf")
    assert op(version)(x).isnan().item(), "inf + -inf must be NaN"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_float16_overflow_is_inf_like_torch(device, version, seed):
    # About 98000 > 65504, the largest float16: accumulated in float32, the cast gives inf.
    x = (1 + torch.rand(2**16, device=device)).half()
    expected = torch.sum(x)
    assert expected.item() == float("inf")
    assert op(version)(x).item() == float("inf")


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool], ids=str)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_empty_is_zero(device, version, dtype):
    for shape in [(0,), (3, 0, 4)]:
        result = op(version)(torch.empty(shape, dtype=dtype, device=device))
        assert result.dim() == 0 and result.item() == 0
        assert result.dtype == torch_reduce.result_dtype(dtype)
        assert result.device.type == device


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_shapes_and_views(device, version, seed):
    base = random_tensor(7 * 13 * 257, torch.float32, device).reshape(7, 13, 257)
    views = {
        "0-dim": base[3, 5, 7],
        "multi-dim": base,
        "transposed": base.transpose(0, 2),
        "strided": base[:, ::3, 1::2],
        "expanded": base[0, 0].expand(9, 257),
        "permuted": base.permute(1, 2, 0),
    }
    for name, view in views.items():
        assert_close_to_reference(op(version)(view), view, name)


@pytest.mark.parametrize("offset", [1, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_misaligned_views(device, version, dtype, offset, seed):
    base = random_tensor(100_003, dtype, device)
    for length in (1, 7, 4096, 100_000 - offset):
        view = base[offset : offset + length]
        assert view.data_ptr() % 16 != 0
        assert_close_to_reference(op(version)(view), view, f"length={length}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64], ids=str)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_bitwise_deterministic(device, version, dtype, seed):
    x = random_tensor(2**22 + 5, dtype, device)
    first = op(version)(x)
    for _ in range(5):
        assert torch.equal(op(version)(x), first)


@requires_cuda
@pytest.mark.parametrize("version", VERSIONS)
def test_producer_and_op_on_side_stream(version, seed):
    """The op must run on the current stream: here a side stream whose producer
    is still busy when the op is enqueued. An op on the default stream would
    read the buffer before the producer wrote it."""
    source = random_tensor(2**20 + 3, torch.float32, "cuda")
    x = torch.zeros_like(source)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # keep the producer late
        x.copy_(source)
        result = op(version)(x)
    side.synchronize()
    assert_close_to_reference(result, source, f"seed={seed}")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_unsupported_input_is_a_clear_error(device, version):
    name = f"reduce_opt::sum_v{version}"
    with pytest.raises(RuntimeError, match=rf"{name}: unsupported dtype .*Complex"):
        op(version)(torch.ones(8, dtype=torch.complex64, device=device))
    with pytest.raises((RuntimeError, NotImplementedError), match=name):
        op(version)(torch.ones(8, device=device).to_sparse())
    if device == "cpu":
        with pytest.raises((RuntimeError, NotImplementedError), match=name):
            op(version)(torch.quantize_per_tensor(torch.ones(8), 0.1, 0, torch.quint8))
    # The device stays usable.
    x = random_tensor(1000, torch.float32, device)
    assert_close_to_reference(op(version)(x), x)


@pytest.mark.large
@requires_cuda
@pytest.mark.parametrize("version", VERSIONS)
def test_more_than_2_31_elements(version, seed):
    """int8 sums are exact, so any indexing slip past 2**31 shows as a wrong number."""
    numel = 2**31 + 7
    skip_unless_free(3 * numel)
    x = torch.randint(-128, 128, (numel,), dtype=torch.int8, device="cuda")
    expected = exact_gpu_sum(x)
    assert op(version)(x).item() == expected
    assert op(version)(x[1:]).item() == expected - x[0].item()


def test_cpu_full_sum_of_more_than_64_dims(seed):
    """The CPU full sum takes any number of dims (the repeats' check too)."""
    x = torch.randn([1] * 64 + [3]).expand([2] * 10 + [1] * 54 + [3])
    assert x.dim() == 65
    assert torch.allclose(op(7)(x), x[(0,) * 64].sum() * 2**10, rtol=1e-6)
    dense = x.contiguous()
    assert_close_to_reference(op(7)(dense), dense)


@pytest.mark.large
@requires_cuda
def test_strided_views_of_more_than_2_31_elements(seed):
    """sum_v7 reads each view in place; int8 sums are exact, so an index that
    wraps at 2**31 in the dense, row-strided or expanded path shows as a wrong number.
    The full sum of the expanded view is its row's sum times the rows; its sum
    over dim 1 reads the row once per output, over 2**31 elements."""
    rows, cols = 2**15 + 1, 2**16 + 64  # 2.15e9 elements, just past 2**31
    skip_unless_free(2 * rows * cols)
    x = torch.randint(-128, 128, (rows, cols), dtype=torch.int8, device="cuda")

    def exact(view):
        return sum(chunk.sum(dtype=torch.int64).item() for chunk in view.split(2**12))

    transposed, inner = x.t(), x[:, 1:-1]
    assert inner.numel() > 2**31
    assert op(7)(transposed).item() == exact(x)
    assert op(7)(inner).item() == exact(inner)
    row = x[:1]
    expanded = row.expand(rows, cols)
    assert op(7)(expanded).item() == rows * exact(row)
    per_row = op(7)(expanded, [1])
    assert torch.equal(per_row, torch.full_like(per_row, exact(row)))


@pytest.mark.large
@requires_cuda
@pytest.mark.parametrize("version", [6, 7])
def test_more_than_2_31_float32_elements(version, seed):
    numel = 2**31 + 3
    skip_unless_free(4 * numel + 2**30)
    x = torch.randn(numel, device="cuda")
    reference = sum(chunk.double().sum().item() for chunk in x.split(2**27))
    abs_sum = sum(chunk.double().abs().sum().item() for chunk in x.split(2**27))
    error = abs(op(version)(x).item() - reference)
    assert error <= 2 * torch.finfo(torch.float32).eps * numel.bit_length() * abs_sum
