"""``python -m rodinia_suite plot out.json``: speedup, scaling and ablation charts as PNG files."""

from __future__ import annotations

import json
from pathlib import Path


class PlotError(Exception):
    pass


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise PlotError("plotting needs matplotlib: python3 -m pip install matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot(json_file: str, out_dir: str = ".") -> list[Path]:
    """Draw the charts the results hold; returns the files written."""
    data = json.loads(Path(json_file).read_text())
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = data["results"]
    threads = data["threads"]
    written = []

    # Speedup of translated over OpenMP per benchmark, at the largest thread count.
    top = [r for r in results if r["threads"] == threads[-1]]
    fig, ax = plt.subplots(figsize=(max(4, 0.6 * len(top) + 2), 4))
    ax.bar([r["benchmark"] for r in top], [r["speedup"] or 0 for r in top])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel("speedup over OpenMP (x)")
    ax.set_title(f"cuda2cpu vs OpenMP, {threads[-1]} thread(s), size {data['size']}")
    ax.tick_params(axis="x", rotation=45)
    fig.tight_layout()
    written.append(out / "rodinia_speedup.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    if len(threads) > 1:
        fig, ax = plt.subplots(figsize=(5, 4))
        for name in dict.fromkeys(r["benchmark"] for r in results):
            rows = [r for r in results if r["benchmark"] == name and r["translated"]]
            if rows:
                base = rows[0]["translated"]["median"] * rows[0]["threads"]
                ax.plot([r["threads"] for r in rows], [base / r["translated"]["median"] for r in rows],
                        marker="o", label=name)
        ax.set_xlabel("threads")
        ax.set_ylabel("translated: speedup over one thread (scaled)")
        ax.legend(fontsize="small")
        fig.tight_layout()
        written.append(out / "rodinia_scaling.png")
        fig.savefig(written[-1], dpi=100)
        plt.close(fig)

    ablation = {p: g for p, g in data.get("ablation", {}).items() if g}
    if ablation:
        fig, ax = plt.subplots(figsize=(max(4, 0.8 * len(ablation) + 2), 4))
        ax.bar(list(ablation), list(ablation.values()))
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel("geomean slowdown without the pass (x)")
        ax.tick_params(axis="x", rotation=45)
        fig.tight_layout()
        written.append(out / "rodinia_ablation.png")
        fig.savefig(written[-1], dpi=100)
        plt.close(fig)
    return written
