"""CUDA streams that the test creates and destroys itself, outside PyTorch's pool.

They come from the cudart that PyTorch loaded (``torch.cuda.cudart()``), so the
handles are the same kind PyTorch's own streams are; a test wraps them in
``torch.cuda.ExternalStream`` to run ops on them.
"""

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager

import torch


def create_raw_stream() -> int:
    """A new blocking stream on the current device; the caller destroys it."""
    handle = ctypes.c_void_p(0)
    torch.cuda.check_error(torch.cuda.cudart().cudaStreamCreate(ctypes.addressof(handle)))
    assert handle.value, "cudaStreamCreate returned a null stream"
    return handle.value


def destroy_raw_stream(handle: int) -> None:
    """Waits for the stream's work, then destroys it: the caching allocator may hand
    the stream's freed blocks to a later stream that gets the same handle."""
    torch.cuda.ExternalStream(handle).synchronize()
    torch.cuda.check_error(torch.cuda.cudart().cudaStreamDestroy(handle))


@contextmanager
def external_stream() -> Iterator[torch.cuda.ExternalStream]:
    """A raw stream as a ``torch.cuda.ExternalStream``, destroyed on exit."""
    handle = create_raw_stream()
    try:
        yield torch.cuda.ExternalStream(handle)
    finally:
        destroy_raw_stream(handle)
