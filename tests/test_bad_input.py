"""Unsupported input at the Python layer (issue 16): every dtype, layout and kind
of tensor the ops do not take gives an error that names the op and the
problem, for every version, on the CPU, the meta device and the GPU; nothing
crashes the interpreter; views with a pending negation still give torch.sum's
result.

``python tests/test_bad_input.py DEVICE`` makes every bad call in one process
and prints what each raised: the first test runs it in a child process, so
that a crash shows as a failed test and not as the end of the run.
"""

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
import torch
from child_process import describe, run_python
from conftest import HAS_CUDA, VERSIONS, assert_close_to_reference, op, random_tensor

import torch_reduce

DEVICES = [
    pytest.param("cpu"),
    pytest.param("meta"),
    pytest.param("cuda", marks=pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")),
]
HAS_DIMS_OVERLOAD = hasattr(torch.ops.reduce_opt.sum_v7, "dim_IntList")
HAS_DTYPE_ARGUMENT = any(
    argument.name == "dtype" for argument in torch.ops.reduce_opt.sum_v7.default._schema.arguments
)
requires_dims_overload = pytest.mark.skipif(
    not HAS_DIMS_OVERLOAD, reason="sum_v7.dim_IntList is not registered in this build (issue 13)"
)


def names_op(version: int) -> str:
    # The C++ checks and the dispatcher write reduce_opt::sum_vN; a tensor
    # subclass's __torch_dispatch__ writes the overload, reduce_opt.sum_vN.default.
    return rf"reduce_opt(::|\.)sum_v{version}\b"


def assert_error_names(error: BaseException, version: int, problem: str) -> None:
    message = str(error)
    assert re.search(names_op(version), message), f"the error does not name the op: {message}"
    assert re.search(problem, message, re.IGNORECASE), (
        f"the error does not say what is wrong ({problem!r}): {message}"
    )


def all_dtypes() -> list[torch.dtype]:
    """Every dtype this torch has, once each (torch.float is torch.float32)."""
    found = {value for value in vars(torch).values() if isinstance(value, torch.dtype)}
    return sorted(found, key=str)


QUANTIZED_DTYPES = {torch.quint8, torch.qint8, torch.qint32, torch.quint4x2, torch.quint2x4}
UNSUPPORTED_DTYPES = [
    dtype
    for dtype in all_dtypes()
    if dtype not in torch_reduce.SUPPORTED_DTYPES and dtype not in QUANTIZED_DTYPES
]


class BadInput(NamedTuple):
    name: str
    make: Callable[[str], torch.Tensor]  # device -> the input
    devices: tuple[str, ...]
    problem: str  # a regex the error must match, besides the op's name


def sparse_input(convert: str, *args) -> Callable[[str], torch.Tensor]:
    # Made on the CPU and moved: torch has no meta kernel for the conversions.
    return lambda device: getattr(torch.randn(4, 6), convert)(*args).to(device)


def quantized_input(device: str) -> torch.Tensor:
    if device == "meta":
        return torch.empty(8, dtype=torch.quint8, device="meta")
    return torch.quantize_per_tensor(torch.randn(8, device=device), 0.1, 0, torch.quint8)


def nested_input(layout: torch.layout) -> Callable[[str], torch.Tensor]:
    return lambda device: torch.nested.nested_tensor(
        [torch.randn(3, device=device), torch.randn(5, device=device)], layout=layout
    )


ALL_DEVICES = ("cpu", "meta", "cuda")
BAD_INPUTS = [
    *(
        BadInput(
            str(dtype).removeprefix("torch."),
            lambda device, dtype=dtype: torch.empty(8, dtype=dtype, device=device),
            ALL_DEVICES,
            r"unsupported dtype",
        )
        for dtype in UNSUPPORTED_DTYPES
    ),
    BadInput("sparse COO", sparse_input("to_sparse"), ALL_DEVICES, r"sparse"),
    BadInput("sparse CSR", sparse_input("to_sparse_csr"), ("cpu", "cuda"), r"sparse"),
    BadInput("sparse CSC", sparse_input("to_sparse_csc"), ("cpu", "cuda"), r"sparse"),
    BadInput("sparse BSR", sparse_input("to_sparse_bsr", (2, 2)), ("cpu", "cuda"), r"sparse"),
    BadInput("sparse BSC", sparse_input("to_sparse_bsc", (2, 2)), ("cpu", "cuda"), r"sparse"),
    BadInput("quantized", quantized_input, ALL_DEVICES, r"quantized"),
    BadInput("nested, strided layout", nested_input(torch.strided), ("cpu", "cuda"), r"nested"),
    BadInput("nested, jagged layout", nested_input(torch.jagged), ("cpu", "cuda"), r"nested"),
]
if torch.backends.mkldnn.is_available():
    BAD_INPUTS.append(
        BadInput("mkldnn", lambda device: torch.randn(8).to_mkldnn(), ("cpu",), r"mkldnn")
    )


def bad_input_params():
    for case in BAD_INPUTS:
        for device in case.devices:
            device_marks = [pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")]
            yield pytest.param(
                case,
                device,
                marks=device_marks if device == "cuda" else [],
                id=f"{case.name}-{device}",
            )


def test_bad_input_does_not_crash_the_interpreter():
    devices = ["cpu", "meta"] + (["cuda"] if HAS_CUDA else [])
    completed = run_python(Path(__file__), *devices, timeout=300)
    assert completed.returncode == 0, describe(completed)
    assert "bad input: every call raised" in completed.stdout, describe(completed)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("case", "device"), list(bad_input_params()))
def test_bad_input_is_a_clear_error(case, device, version):
    x = case.make(device)
    with pytest.raises(RuntimeError) as caught:  # NotImplementedError is a RuntimeError
        op(version)(x)
    assert_error_names(caught.value, version, case.problem)


@pytest.mark.parametrize("version", VERSIONS)
def test_non_tensor_argument_is_a_clear_error(version):
    for argument in (None, 1.5, [1.0, 2.0]):
        with pytest.raises((RuntimeError, TypeError)) as caught:
            op(version)(argument)
        assert re.search(names_op(version), str(caught.value)), str(caught.value)


@pytest.mark.parametrize("dtype", sorted(torch_reduce.SUPPORTED_DTYPES, key=str), ids=str)
@pytest.mark.parametrize("version", VERSIONS)
def test_meta_tensors_go_through_the_fake_kernel(version, dtype):
    result = op(version)(torch.empty(3, 5, dtype=dtype, device="meta"))
    assert result.device.type == "meta"
    assert result.shape == () and result.dtype == torch_reduce.result_dtype(dtype)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", [d for d in DEVICES if d.values[0] != "meta"])
def test_views_with_pending_negation_or_stride_give_torch_sum(device, version, seed):
    """Real views of complex memory: .imag of a conjugate carries the negative
    bit (PyTorch negates it lazily), .real has stride 2. Reading the data
    pointer without resolving the bit would give the sum with the wrong sign."""
    z = torch.randn(4099, dtype=torch.complex64, device=device)
    for name, view in (("conj().imag", z.conj().imag), ("real", z.real)):
        assert_close_to_reference(op(version)(view), view, f"{name}, seed={seed}")
    assert z.conj().imag.is_neg(), "torch no longer gives a negative-bit view here"


@requires_dims_overload
@pytest.mark.parametrize("device", DEVICES)
def test_dims_overload_bad_arguments(device):
    x = torch.randn(3, 4, device=device)
    sum_dims = torch.ops.reduce_opt.sum_v7.dim_IntList
    with pytest.raises(IndexError) as caught:
        sum_dims(x, [2])
    assert_error_names(caught.value, 7, r"out of range")
    with pytest.raises(RuntimeError) as caught:
        sum_dims(x, [0, -2])
    assert_error_names(caught.value, 7, r"multiple times")
    with pytest.raises(RuntimeError) as caught:
        sum_dims(x, [0], dtype=torch.complex64)
    assert_error_names(caught.value, 7, r"dtype")
    with pytest.raises(RuntimeError) as caught:
        sum_dims(torch.empty(3, 4, dtype=torch.complex64, device=device), [0])
    assert_error_names(caught.value, 7, r"unsupported dtype")
    with pytest.raises(RuntimeError) as caught:
        sum_dims(torch.randn(3, 4).to_sparse().to(device), [0])
    assert_error_names(caught.value, 7, r"sparse")


@pytest.mark.skipif(not HAS_DTYPE_ARGUMENT, reason="sum_v7 has no dtype argument in this build")
@pytest.mark.parametrize("device", DEVICES)
def test_unsupported_result_dtype_is_a_clear_error(device):
    with pytest.raises(RuntimeError) as caught:
        torch.ops.reduce_opt.sum_v7(torch.randn(8, device=device), dtype=torch.complex64)
    assert_error_names(caught.value, 7, r"dtype")


def make_every_bad_call(devices: list[str]) -> None:
    """The child process of test_bad_input_does_not_crash_the_interpreter."""
    for device in devices:
        for case in BAD_INPUTS:
            if device not in case.devices:
                continue
            x = case.make(device)
            for version in VERSIONS:
                try:
                    op(version)(x)
                except RuntimeError as error:
                    first_line = str(error).splitlines()[0][:120]
                    print(f"{case.name} on {device}, sum_v{version}: {first_line}")
                else:
                    raise AssertionError(f"{case.name} on {device}, sum_v{version}: no error")
        if device == "cuda":
            # The context is still usable.
            x = random_tensor(1000, torch.float32, "cuda")
            assert_close_to_reference(op(7)(x), x)
    print("bad input: every call raised")


if __name__ == "__main__":
    make_every_bad_call(sys.argv[1:])
