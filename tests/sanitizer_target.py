"""Calls every version on a few small inputs, for compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 --kernel-regex kns=sum_v \
        python tests/sanitizer_target.py
    (and --tool racecheck)

Sizes: a multiple of the block size (one block, and several), one that is not
(a partial last tile, several passes / blocks, v7's last-block path), and a
misaligned view. Each result is checked, so a silent error also fails.
"""

import torch

import torch_reduce


def main() -> None:
    base = torch.randn(70_003, device="cuda")
    inputs = {
        "2048 float32": base[:2048],
        "70001 float32": base[:70_001],
        "70001 float16, misaligned": base.half()[1:70_002],
    }
    for version in torch_reduce.VERSIONS:
        for name, x in inputs.items():
            result = torch_reduce.sum(x, version=version.number).double().item()
            expected = x.double().sum().item()
            tolerance = 1e-3 * x.double().abs().sum().item()
            assert abs(result - expected) <= tolerance, (version.number, name, result, expected)
    torch.cuda.synchronize()
    print("sanitizer target: all versions ran and matched")


if __name__ == "__main__":
    main()
