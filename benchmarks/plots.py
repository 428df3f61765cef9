"""PNG plots: per scenario, time per call against size (log-log) with every
peer, one panel per dtype (bars per case for the fixed-shape scenarios); and
the v0 -> v7 step table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after choosing the backend)

from benchmarks.peers import NAMES, ROOFLINE  # noqa: E402
from benchmarks.runner import Row  # noqa: E402

DPI = 120


def style(peer: str) -> dict[str, Any]:
    """The same colour for a peer in every plot; the roofline black and dashed."""
    if peer == ROOFLINE:
        return {"color": "black", "linestyle": "--"}
    index = NAMES.index(peer) if peer in NAMES else len(NAMES)
    return {"color": plt.get_cmap("tab20")(index % 20)}


def _panels(count: int, width: float, height: float):
    fig, axes = plt.subplots(1, count, figsize=(width * count, height), squeeze=False)
    return fig, axes[0]


def size_plot(path: Path, title: str, rows: list[Row]) -> None:
    """Time per call against elements, log-log; a line per peer, a panel per dtype."""
    dtypes = list(dict.fromkeys(r.dtype for r in rows))
    fig, axes = _panels(len(dtypes), 6.5, 5)
    for ax, dtype in zip(axes, dtypes, strict=True):
        for peer in dict.fromkeys(r.peer for r in rows):
            points = sorted(
                (2**r.log2, r.median_us)
                for r in rows
                if r.dtype == dtype and r.peer == peer and r.median_us and r.median_us > 0
            )
            if points:
                ax.plot(
                    *zip(*points, strict=True), marker="o", markersize=3, label=peer, **style(peer)
                )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(f"elements ({dtype})")
        ax.set_ylabel("time per call (us)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="x-small")
        ax.set_title(dtype)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def case_plot(path: Path, title: str, rows: list[Row]) -> None:
    """Horizontal bars of time per call (log), a group per case, a bar per peer."""
    cases = list(dict.fromkeys(f"{r.dtype} {r.case}" for r in rows))
    peers = list(dict.fromkeys(r.peer for r in rows))
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(cases) * len(peers) + 1.5))
    height = 0.8 / len(peers)
    for j, peer in enumerate(peers):
        times = {f"{r.dtype} {r.case}": r.median_us for r in rows if r.peer == peer}
        ys = [i + j * height for i in range(len(cases))]
        xs = [times.get(c) or 0 for c in cases]
        ax.barh(ys, xs, height=height, label=peer, color=style(peer)["color"])
    ax.set_yticks([i + 0.4 - height / 2 for i in range(len(cases))], cases, fontsize="small")
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("time per call (us), log scale; missing bar: not run or WRONG")
    ax.legend(fontsize="x-small")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def steps_plot(path: Path, device: str, table: dict[str, Any]) -> None:
    steps = table["steps"]
    fig, ax = plt.subplots(figsize=(8, 5))
    bars = ax.bar([f"v{s['version']}" for s in steps], [s["time_us"] for s in steps])
    ax.bar_label(bars, labels=[f"{s['cumulative_speedup']:.1f}x" for s in steps], fontsize="small")
    ax.set_ylabel("time per call (us)")
    ax.set_title(
        f"{device}: float32, 2^{table['log2']} elements, {table['scenario']}\n"
        "time per call and cumulative speedup over v0"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def write(out: Path, device: str, rows: list[Row], step_tables: list[dict[str, Any]]) -> list[Path]:
    """Every plot the rows allow; returns the files written."""
    written = []
    for scenario in dict.fromkeys(r.scenario for r in rows):
        timed = [r for r in rows if r.scenario == scenario and r.median_us]
        if not timed:
            continue
        path = out / f"{scenario}.png"
        title = f"{scenario}, {device}"
        if all(r.log2 is not None for r in timed):
            size_plot(path, title, timed)
        else:
            case_plot(path, title, timed)
        written.append(path)
    if step_tables:
        largest = max(step_tables, key=lambda t: (t["scenario"] == "graph", t["log2"]))
        steps_plot(out / "steps.png", device, largest)
        written.append(out / "steps.png")
    return written
