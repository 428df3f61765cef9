"""compute-sanitizer over every version (issue 16): memcheck, initcheck, racecheck
and synccheck run tests/sanitizer_target.py, and any report fails the test.

memcheck and initcheck run the eager and many-wave parts without the caching
allocator, so that each tensor is an allocation of its own and a read past its
end or of memory never written shows; the graph part needs the caching
allocator. racecheck and synccheck look at shared memory and barriers only, so
one run of every part each is enough. Sizes are small but for the many-wave
part's two sums past 16x L2 (about 1 GB each), the only inputs that take that
path.
"""

import os
import re
import shutil
from pathlib import Path

import pytest
from child_process import TESTS_DIR, describe, run_python
from conftest import requires_cuda


def find_compute_sanitizer() -> str | None:
    on_path = shutil.which("compute-sanitizer")
    if on_path:
        return on_path
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    candidate = Path(cuda_home) / "bin" / "compute-sanitizer"
    return str(candidate) if candidate.is_file() else None


COMPUTE_SANITIZER = find_compute_sanitizer()
requires_sanitizer = pytest.mark.skipif(
    COMPUTE_SANITIZER is None,
    reason="compute-sanitizer is neither on PATH nor in $CUDA_HOME/bin (it ships with the "
    "CUDA toolkit)",
)

RUNS = [
    ("memcheck", "eager"),
    ("memcheck", "graph"),
    ("memcheck", "many-waves"),
    ("initcheck", "eager"),
    ("initcheck", "graph"),
    ("initcheck", "many-waves"),
    ("racecheck", "all"),
    ("synccheck", "all"),
]
# What each tool prints at the end of a clean run.
CLEAN_SUMMARY = {
    "memcheck": r"ERROR SUMMARY: 0 errors",
    "initcheck": r"ERROR SUMMARY: 0 errors",
    "synccheck": r"ERROR SUMMARY: 0 errors",
    "racecheck": r"RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)",
}
# compute-sanitizer refuses some virtualised GPUs outright (seen under gVisor):
# that says nothing about the kernels, so the test skips and shows the message.
DEVICE_REFUSED = "Device not supported"


def sanitizer_command(tool: str) -> tuple[str, ...]:
    # API errors are left out: PyTorch probes the driver with calls that fail by
    # design, and the ops turn their own failed calls into exceptions, which
    # fail the target. Kernels are not filtered by name, so renamed kernels
    # cannot slip past; the target runs no other reduction on the GPU.
    return (
        COMPUTE_SANITIZER,
        "--tool",
        tool,
        "--error-exitcode",
        "1",
        "--report-api-errors",
        "no",
    )


@pytest.mark.sanitizer
@requires_cuda
@requires_sanitizer
@pytest.mark.parametrize(("tool", "part"), RUNS, ids=[f"{tool}-{part}" for tool, part in RUNS])
def test_no_sanitizer_report(tool, part):
    uncached = part in ("eager", "many-waves")
    completed = run_python(
        TESTS_DIR / "sanitizer_target.py",
        "--part",
        part,
        wrapper=sanitizer_command(tool),
        env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"} if uncached else {},
        timeout=300,
    )
    output = completed.stdout + completed.stderr
    if DEVICE_REFUSED in output:
        pytest.skip(f"compute-sanitizer cannot run on this GPU: {describe(completed, 600)}")
    assert completed.returncode == 0, describe(completed)
    assert re.search(CLEAN_SUMMARY[tool], output), describe(completed)
    assert f"sanitizer target: part {part} ran and matched" in output, describe(completed)
