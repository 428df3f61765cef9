"""Packaging: the built extension, the installed metadata, and the supported torch
range, stated alike in setup.py, pyproject.toml, .ci/run and the README.

CI's full check of the wheel (`pip wheel .`, installed into a fresh environment,
the tests run against it) is in .ci/run; these tests are the cheap part.
"""

import ast
import importlib.metadata
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
from packaging.requirements import Requirement
from packaging.version import Version

import torch_reduce

REPO = Path(__file__).resolve().parent.parent
CI_SCRIPT = (REPO / ".ci" / "run").read_text()
README = (REPO / "README.md").read_text()


def setup_constant(name: str):
    """A literal assigned at the top level of setup.py (importing it would run the build)."""
    for node in ast.parse((REPO / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in node.targets
        ):
            return ast.literal_eval(node.value)
    raise AssertionError(f"setup.py defines no {name}")


def ci_variable(name: str) -> str:
    match = re.search(rf"^{name}=(\S+)$", CI_SCRIPT, re.MULTILINE)
    assert match, f".ci/run sets no {name}"
    return match.group(1)


def pip_install_packages(line: str) -> list[str]:
    """The packages other than torch that a `pip install torch==... a b c` line installs."""
    segment = next(part for part in line.split("&&") if "torch==" in part)
    words = segment.split()
    return sorted(word for word in words[words.index("install") + 1 :] if "torch==" not in word)


def minor_release(version: str) -> tuple[int, int]:
    return Version(version).release[:2]


def test_extension_uses_python_limited_api():
    assert Path(torch_reduce._C.__file__).name.endswith(".abi3.so"), torch_reduce._C.__file__


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs readelf (binutils)")
def test_extension_does_not_link_libtorch_python():
    # libtorch_python is built for one Python version: linking it would undo the limited API.
    dynamic_section = subprocess.run(
        ["readelf", "--dynamic", torch_reduce._C.__file__],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic_section)
    assert "libc10.so" in needed, needed
    assert not [name for name in needed if name.startswith("libtorch_python")], needed


def test_installed_metadata_requires_the_torch_release_it_was_built_with():
    try:
        requirements = importlib.metadata.requires("torch_reduce") or []
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("torch_reduce is built in place, not installed: it has no metadata")
    torch_requirements = [Requirement(r) for r in requirements if Requirement(r).name == "torch"]
    assert len(torch_requirements) == 1, requirements
    specifier = torch_requirements[0].specifier
    major, minor = minor_release(torch.__version__)
    assert specifier.contains(torch.__version__.split("+")[0]), (specifier, torch.__version__)
    assert not specifier.contains(f"{major}.{minor + 1}.0"), specifier
    assert not specifier.contains(f"{major}.{minor - 1}.0"), specifier


def test_supported_range_is_stated_alike_everywhere():
    oldest, newest = setup_constant("OLDEST_TORCH"), setup_constant("NEWEST_TORCH")
    ci_oldest, ci_newest = ci_variable("OLDEST_TORCH"), ci_variable("NEWEST_TORCH")
    # CI tests the two ends of the range that setup.py claims.
    assert minor_release(ci_oldest) == minor_release(oldest)
    assert minor_release(ci_newest) == minor_release(newest)

    build_requirement = re.search(r'"(torch[<>=!,.\d]+)"', (REPO / "pyproject.toml").read_text())
    assert build_requirement, "pyproject.toml's build-system requires no torch range"
    build_range = Requirement(build_requirement.group(1)).specifier
    assert build_range.contains(ci_oldest) and build_range.contains(ci_newest), build_range
    below = f"{minor_release(oldest)[0]}.{minor_release(oldest)[1] - 1}.0"
    above = f"{minor_release(newest)[0]}.{minor_release(newest)[1] + 1}.0"
    assert not build_range.contains(below) and not build_range.contains(above), build_range

    assert f"torch {oldest} to {newest}" in README
    assert f"torch=={ci_newest} " in README


def test_ci_runs_the_readme_test_command():
    # The one-line install-build-test commands; other pytest lines in the README
    # (GPU-only subsets) are run on a GPU machine, not by CI.
    test_commands = [
        line
        for line in README.splitlines()
        if "pip install" in line and "python -m pytest tests" in line
    ]
    assert test_commands, "the README has no test command"
    for command in test_commands:
        assert command in CI_SCRIPT.splitlines(), command


def test_ci_installs_the_same_test_packages_for_both_torch_releases():
    newest_line = next(line for line in CI_SCRIPT.splitlines() if "install torch==" in line)
    oldest_line = next(line for line in CI_SCRIPT.splitlines() if '"torch==$OLDEST_TORCH"' in line)
    assert pip_install_packages(newest_line) == pip_install_packages(oldest_line)
