"""Runs a Python script in a child process that imports the same torch_reduce as
the tests: for work that may crash or poison the CUDA context, and for tools that
wrap the interpreter (compute-sanitizer)."""

import os
import subprocess
import sys
from pathlib import Path

import torch_reduce

TESTS_DIR = Path(__file__).resolve().parent
# The folder that holds the torch_reduce package the tests imported (an
# in-place build or an editable install), put first on the child's path.
PACKAGE_ROOT = Path(torch_reduce.__file__).resolve().parent.parent


def run_python(
    script: Path,
    *args: str,
    wrapper: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess:
    """``[*wrapper, python, script, *args]`` with stdout and stderr captured as text."""
    child_env = {**os.environ, **(env or {})}
    child_env["PYTHONPATH"] = os.pathsep.join(
        [str(PACKAGE_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    return subprocess.run(
        [*wrapper, sys.executable, str(script), *args],
        cwd=TESTS_DIR,
        env=child_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def describe(completed: subprocess.CompletedProcess, tail: int = 6000) -> str:
    """The exit status and the end of the output, for a failure message."""
    output = (completed.stdout + completed.stderr)[-tail:]
    return f"exit status {completed.returncode}; output ends with:\n{output}"
