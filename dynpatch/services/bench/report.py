"""What a bench run shows: its figures, a Markdown table, the slope line and the plot."""

from __future__ import annotations

import io
from typing import Any

from dynpatch.services.bench.counts import TreeCounts, choices
from dynpatch.services.bench.plan import REQUEST_CASES, STREAMS

COLORS = {"baseline": "tab:red", "patched": "tab:blue", "alternative": "tab:green"}


def figures(trees: dict[str, TreeCounts]) -> dict[str, Any]:
    """The derived figures of ``trees`` (the baseline first): per request, per chunk."""
    base = trees["baseline"]
    requests: dict[str, Any] = {}
    for case in REQUEST_CASES:
        row: dict[str, Any] = {}
        for t, c in trees.items():
            total = c.request(case).instructions
            engine = c.request(case, "engine").instructions
            row[t] = {"instructions": total, "engine_double": engine, "handler_own": total - engine}
            if t != "baseline":
                row[f"{t}/baseline"] = total / base.request(case).instructions
                own = row["baseline"]["handler_own"]
                row[f"{t}/baseline handler_own"] = (total - engine) / own
        requests[f"{case.tokens}x{case.choices}"] = {"chunks": base.request(case).chunks, **row}
    per_chunk = {
        f"{stream.tokens}x{stream.choices}": {
            t: {
                "windows": [
                    {"history": list(w.history or ()), "chunks": w.chunks, "per_chunk": w.per_chunk}
                    for w in c.windows(stream)
                ],
                "late_vs_early_pct": c.late_vs_early_pct(stream),
                "slope_per_history_token": c.slope(stream),
            }
            for t, c in trees.items()
        }
        for stream in STREAMS
    }
    return {"requests": requests, "per_chunk": per_chunk}


def table(trees: dict[str, TreeCounts]) -> list[str]:
    """One Markdown row per tree: instructions per request, /baseline, late vs early."""
    columns = ["tree"]
    for case in REQUEST_CASES:
        columns += [f"{case.tokens}x{case.choices} instructions per request", "/baseline"]
    columns += [f"per chunk, late vs early, {choices(s.choices)}" for s in STREAMS]
    lines = ["| " + " | ".join(columns) + " |", "|---" + "|---:" * (len(columns) - 1) + "|"]
    base = trees["baseline"]
    for t, c in trees.items():
        cells = [t]
        for case in REQUEST_CASES:
            n = c.request(case).instructions
            cells += [f"{n:,}", f"{n / base.request(case).instructions:.3f}"]
        cells += [f"{c.late_vs_early_pct(s):+.2f}%" for s in STREAMS]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def slope_line(trees: dict[str, TreeCounts]) -> str:
    """Each tree's per-chunk slope over the windows, in instructions per history token."""
    parts = []
    for t, c in trees.items():
        # round first, so that a slope of -0.001 reads 0.00 and not -0.00
        values = ", ".join(f"{round(c.slope(s), 2) + 0.0:.2f} ({s.choices}ch)" for s in STREAMS)
        parts.append(f"{t} {values}")
    return "slope of instructions per chunk over history, per history token: " + "; ".join(parts)


def plot_png(trees: dict[str, TreeCounts]) -> bytes:
    """Instructions per chunk against history (the same counts give the same bytes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=120)
    for t, c in trees.items():
        for stream in STREAMS:
            windows = c.windows(stream)
            ax.plot(
                [sum(w.history or (0, 0)) / 2 for w in windows],
                [w.per_chunk / 1000 for w in windows],
                "o-" if stream.choices == 1 else "o--",
                color=COLORS.get(t, "tab:orange"),
                markersize=4,
                label=f"{t}, {choices(stream.choices)}",
            )
    ax.set_xlabel("history length of the choice (tokens already streamed)")
    ax.set_ylabel("instructions per chunk (thousands, callgrind Ir)")
    ax.set_title(
        f"dynamo TRT-LLM handler, one {STREAMS[0].tokens}-token stream, logprobs on", fontsize=10
    )
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    png = io.BytesIO()
    try:
        fig.savefig(png, format="png", metadata={"Software": None})  # no timestamp
    finally:
        plt.close(fig)
    return png.getvalue()
