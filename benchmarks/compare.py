"""Runs side by side: sum_v7's time and its standing against the best peer of the
same run, case by case, in each of several results.json files (an A/B of two
builds alternated on one machine, or the same commit on two GPUs).

    python -m benchmarks.compare A1/results.json B2/results.json A3/ B4/ --scenarios dims

A ratio is the best peer's time / sum_v7's time in that run (above 1: sum_v7 is
faster), the convention of the summary's "vs" columns; only ratios are
comparable between runs, since the peers move with the machine too.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.peers import CUB, INDUCTOR, TORCH_SUM, V7
from benchmarks.report import markdown_table

PEERS = (TORCH_SUM, INDUCTOR, CUB)  # what sum_v7 must beat; not the ladder or the roofline

Key = tuple[str, str, str]  # scenario, dtype, case


def standings(rows: list[dict[str, Any]]) -> dict[Key, tuple[float, float, str]]:
    """Per case of one run: sum_v7's median, best peer / sum_v7, the best peer."""
    times: dict[Key, dict[str, float]] = {}
    for row in rows:
        if row["status"] == "ok" and row["peer"] in (*PEERS, V7):
            key = (row["scenario"], row["dtype"], row["case"])
            times.setdefault(key, {})[row["peer"]] = row["median_us"]
    result = {}
    for key, by_peer in times.items():
        peers = {peer: us for peer, us in by_peer.items() if peer != V7}
        if V7 in by_peer and peers:
            best = min(peers, key=peers.get)
            result[key] = (by_peer[V7], peers[best] / by_peer[V7], best)
    return result


def load(path: Path) -> list[dict[str, Any]]:
    """The rows of a results.json, or of the one in a run's directory."""
    if path.is_dir():
        path = path / "results.json"
    return json.loads(path.read_text())["rows"]


def comparison(
    runs: Sequence[tuple[str, list[dict[str, Any]]]], scenarios: Sequence[str] | None
) -> str:
    """A line per case that every run measured, in the first run's order; runs
    are (name, rows) pairs, so that one file may appear twice."""
    per_run = [standings(rows) for _, rows in runs]
    keys = [k for k in per_run[0] if all(k in s for s in per_run)]
    if scenarios is not None:
        unknown = sorted(set(scenarios) - {k[0] for k in keys})
        if unknown:
            raise ValueError(f"no case of scenario(s) {', '.join(unknown)} in every run")
        keys = [k for k in keys if k[0] in scenarios]
    headers = [
        "scenario",
        "dtype",
        "case",
        *(f"{name}: v7 us (ratio, best peer)" for name, _ in runs),
    ]
    body = []
    for key in keys:
        cells = []
        for standing in per_run:
            us, ratio, best = standing[key]
            cells.append(f"{us:,.2f} ({ratio:.3f}, {best})")
        body.append([*key, *cells])
    return markdown_table(headers, body)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.compare", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("runs", nargs="+", type=Path, help="results.json files or run directories")
    parser.add_argument("--scenarios", type=lambda text: text.split(","),
                        help="comma-separated scenarios to show (default: all)")  # fmt: skip
    args = parser.parse_args(argv)
    runs = [(str(path), load(path)) for path in args.runs]
    try:
        print(comparison(runs, args.scenarios))
    except ValueError as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
