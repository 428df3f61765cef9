import os
import random

import pytest
import torch

import torch_reduce
from torch_reduce.testing import sum_error_bound

HAS_CUDA = torch.cuda.is_available()
if os.environ.get("TORCH_REDUCE_REQUIRE_CUDA") == "1" and not HAS_CUDA:
    # Set on the GPU machine, so that a broken CUDA setup fails loudly
    # instead of quietly skipping every GPU test.
    raise RuntimeError("TORCH_REDUCE_REQUIRE_CUDA=1 but torch sees no CUDA device")
requires_cuda = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device on this machine")

# Every test that takes `device` runs on the CPU path, and on the GPU when there is one.
DEVICES = [pytest.param("cpu"), pytest.param("cuda", marks=requires_cuda)]
VERSIONS = [v.number for v in torch_reduce.VERSIONS]
FLOAT_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool]
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES

# A large sum's chunk: 512 threads of 4 16-byte loads (contiguous_sum.cu).
LARGE_CHUNK_BYTES = 512 * 4 * 16


def op(version):
    return getattr(torch.ops.reduce_opt, f"sum_v{version}")


@pytest.fixture
def seed():
    """A fresh seed per test, in the failure report so a failure can be replayed."""
    value = random.randrange(2**31)
    torch.manual_seed(value)
    return value


def random_tensor(numel, dtype, device, positive=False):
    """Random data that exercises the sum: zero-mean floats, full-range integers."""
    if dtype.is_floating_point:
        if positive:
            return torch.rand(numel, device=device).to(dtype)
        return torch.randn(numel, device=device).to(dtype)
    if dtype == torch.bool:
        return torch.rand(numel, device=device) < 0.5
    info = torch.iinfo(dtype)
    # int64 elements up to 2**40 so a sum of 2**24 of them needs 64 bits but does not wrap.
    low, high = (-(2**40), 2**40) if dtype == torch.int64 else (info.min, info.max + 1)
    return torch.randint(low, high, (numel,), dtype=dtype, device=device)


def random_shaped(shape, dtype, device):
    """random_tensor's data in the given shape."""
    numel = 1
    for size in shape:
        numel *= size
    return random_tensor(numel, dtype, device).reshape(shape)


def skip_unless_free(bytes_needed):
    """Skip a large-tensor test on a GPU without that much free memory."""
    free, _ = torch.cuda.mem_get_info()
    if free < bytes_needed:
        pytest.skip(f"needs {bytes_needed / 2**30:.1f} GiB free on the GPU, has {free / 2**30:.1f}")


def reference_sum(x):
    """Exact int64 for integers, float64 for floats, computed on the CPU."""
    x = x.cpu()
    if x.dtype.is_floating_point:
        return x.double().sum()
    return x.sum(dtype=torch.int64)


def exact_gpu_sum(x):
    """The exact int64 sum of an integer tensor on the GPU, 2^28 elements at a time:
    torch.sum(dtype=torch.int64) converts its whole input first."""
    return sum(piece.sum(dtype=torch.int64).item() for piece in x.reshape(-1).split(2**28))


def assert_close_to_reference(result, x, message=""):
    """The result matches the float64 / exact reference within what a tree sum
    in the accumulation type can lose, or 2x what torch.sum loses on the same
    input, plus the rounding of the output dtype."""
    expected_dtype = torch_reduce.result_dtype(x.dtype)
    assert result.dtype == expected_dtype, message
    assert result.dim() == 0, message
    assert result.device == x.device, message
    reference = reference_sum(x)
    if not x.dtype.is_floating_point:
        assert result.item() == reference.item(), message
        return
    value = result.double().item()
    abs_sum = x.cpu().double().abs().sum().item()
    torch_error = abs(torch.sum(x).double().item() - reference.item())
    tolerance = sum_error_bound(x.dtype, x.numel(), abs_sum, reference.item(), torch_error)
    error = abs(value - reference.item())
    assert error <= tolerance, f"{message} |{value} - {reference.item()}| = {error} > {tolerance}"


def assert_matches_torch(result, x, dim, keepdim, dtype=None, message=""):
    """Shape, dtype and device as torch.sum's; integer results exact; float results
    within what a correct sum of each row may lose (sum_error_bound's rule, per output:
    a tree bound in the accumulation type, or twice torch.sum's own error), plus the
    rounding of the output dtype."""
    expected = torch.sum(x, dim, keepdim, dtype=dtype)
    message = f"{message} dim={dim} keepdim={keepdim} dtype={dtype}"
    assert result.shape == expected.shape, message
    assert result.dtype == expected.dtype, message
    assert result.device == x.device, message
    values = x.cpu() if dtype is None else x.cpu().to(dtype)
    if not result.dtype.is_floating_point:
        # int64 sums are exact; a narrower result wraps like torch's conversion does.
        reference = values.sum(dim, keepdim, dtype=torch.int64).to(result.dtype)
        assert torch.equal(result.cpu(), reference), message
        return
    reference = values.double().sum(dim, keepdim)
    abs_sum = values.double().abs().sum(dim, keepdim)
    torch_error = (expected.cpu().double() - reference).abs()
    row_length = max(values.numel() // max(reference.numel(), 1), 2)
    accumulate = torch.float64 if values.dtype == torch.float64 else torch.float32
    tree_bound = 2 * torch.finfo(accumulate).eps * row_length.bit_length() * abs_sum
    tolerance = torch.maximum(tree_bound, 2 * torch_error)
    tolerance += torch.finfo(result.dtype).eps * reference.abs()
    error = (result.cpu().double() - reference).abs()
    worst = (error - tolerance).argmax() if error.numel() else None
    assert (error <= tolerance).all(), (
        f"{message}: |error| {error.flatten()[worst]} > {tolerance.flatten()[worst]}"
    )
