"""sum_v7's full sum of every layout class, read in place: dense permutations,
row-strided views, expanded (stride-0) views and general strides, each over
dtypes and sizes, with exact, reference and determinism checks."""

import pytest
import torch
from conftest import DEVICES, assert_close_to_reference, random_shaped

SUM_V7 = torch.ops.reduce_opt.sum_v7
DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.bool]
# (rows, cols) of the matrices the views are taken from: tiny, odd, and 2^24+ elements.
SIZES = {"tiny": (3, 5), "odd": (37, 1029), "large": (4099, 4097)}


def shaped(shape, dtype, device, integer_valued=False):
    if integer_valued:
        return torch.randint(-8, 9, shape, device=device).to(dtype)
    return random_shaped(shape, dtype, device)


def make_views(rows, cols, dtype, device, integer_valued=False):
    """One view per layout class; every one keeps at least rows * cols / 8 elements."""

    def matrix():
        return shaped((rows, cols), dtype, device, integer_valued)

    def activation(channels_last_3d=False):
        # The same elements as the matrix, as an activation of channels (cols)
        # times a small spatial grid (rows = 1 * 1 * rows, or rows in 3-D).
        if channels_last_3d:
            x = shaped((1, cols, 1, 1, rows), dtype, device, integer_valued)
            return x.contiguous(memory_format=torch.channels_last_3d)
        x = shaped((1, cols, 1, rows), dtype, device, integer_valued)
        return x.contiguous(memory_format=torch.channels_last)

    return {
        "transposed": matrix().t(),
        "permuted 3-D": shaped((rows, 2, cols), dtype, device, integer_valued).permute(2, 0, 1),
        "channels_last": activation(),
        "channels_last_3d": activation(channels_last_3d=True),
        "every other row": matrix()[::2],
        "odd column slice": matrix()[:, 1 : max(2, cols - 2)],
        "misaligned rows": shaped((rows, cols + 1), dtype, device, integer_valued)[:, 1:],
        "expanded": shaped((1, cols), dtype, device, integer_valued).expand(rows, cols),
        "3-D strided": shaped((rows, 3, cols), dtype, device, integer_valued)[:, ::2, 1:],
    }


LAYOUTS = list(make_views(2, 3, torch.float32, "cpu"))


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_every_layout_matches_reference(device, dtype, size, seed):
    views = make_views(*SIZES[size], dtype, device)
    assert set(views) == set(LAYOUTS)
    for name, view in views.items():
        assert_close_to_reference(SUM_V7(view), view, f"{name}, seed={seed}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_integer_valued_floats_sum_exactly_in_every_layout(device, dtype, seed):
    # |sum| <= 8 * 37 * 1029 < 2**24: exact in the fp32 accumulator, and the
    # 16-bit results round the exact value once.
    for name, view in make_views(*SIZES["odd"], dtype, device, integer_valued=True).items():
        exact = view.cpu().to(torch.int64).sum().to(dtype)
        assert torch.equal(SUM_V7(view).cpu(), exact), f"{name}, seed={seed}"


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("device", DEVICES)
def test_every_layout_is_bitwise_deterministic(device, dtype, seed):
    for name, view in make_views(*SIZES["large"], dtype, device).items():
        first = SUM_V7(view)
        for _ in range(3):
            assert torch.equal(SUM_V7(view), first), f"{name}, seed={seed}"


@pytest.mark.parametrize("device", DEVICES)
def test_views_are_what_their_names_say(device):
    views = make_views(*SIZES["odd"], torch.float32, device)
    assert views["transposed"].t().is_contiguous()
    assert views["channels_last"].is_contiguous(memory_format=torch.channels_last)
    assert views["channels_last_3d"].is_contiguous(memory_format=torch.channels_last_3d)
    assert not views["channels_last"].is_contiguous()
    assert views["expanded"].stride(0) == 0
    assert views["misaligned rows"].storage_offset() == 1
    for name in ("every other row", "odd column slice", "3-D strided"):
        assert not views[name].is_contiguous(), name
