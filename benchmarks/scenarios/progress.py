"""The progress display shared by the scenarios (tqdm, on stderr)."""

from __future__ import annotations

from collections.abc import Iterator

from tqdm import tqdm

from benchmarks.inputs import Case, dtype_name


def each_case(name: str, cases: list[Case]) -> Iterator[Case]:
    bar = tqdm(cases, desc=name, unit="case", dynamic_ncols=True)
    for case in bar:
        bar.set_postfix_str(f"{dtype_name(case.dtype)} {case.label}")
        yield case
