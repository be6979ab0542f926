"""What a bench run shows: the reference and sweep tables (console and Markdown), the
reference line, and the per-chunk plot."""

from __future__ import annotations

import io
import statistics
from collections.abc import Sequence
from pathlib import Path

from rich.table import Table

from dynpatch import console
from dynpatch.bench.records import LABELS, SweepRound, runs_of
from dynpatch.bench.settings import CHOICES, SIZES
from dynpatch.bench.targets import AllocSummary, SweepRow, pct
from dynpatch.io import files
from dynpatch.replay.stats import PairedChange

REFERENCE_TITLE = (
    "256 tokens x 4 interleaved choices, logprobs on "
    "(op = one request; handler CPU time; medians over pairs)"
)
REFERENCE_COLUMNS = ("tree", "ns/op", "ops/s")
SWEEP_COLUMNS = (
    "tokens x choices",
    "chunks",
    "baseline ns/chunk",
    "patched ns/chunk",
    "change",
    "baseline ms/request",
    "patched ms/request",
    "change",
    "baseline B/chunk",
    "patched B/chunk",
)


def reference_line(ref: PairedChange) -> str:
    return (
        f"paired median change (candidate - baseline, {ref.pairs} pairs): "
        f"{ref.change_pct:+.2f}% of the baseline median, "
        f"{int(ref.level * 100)}% bootstrap CI {ref.ci_low_pct:+.2f}% .. {ref.ci_high_pct:+.2f}%"
    )


def _reference_cells(ref: PairedChange) -> list[list[str]]:
    return [
        ["baseline", f"{ref.baseline_median:,.0f}", f"{1e9 / ref.baseline_median:,.1f}"],
        ["patched", f"{ref.candidate_median:,.0f}", f"{1e9 / ref.candidate_median:,.1f}"],
    ]


def _sweep_cells(sweep: list[SweepRow], alloc: AllocSummary) -> list[list[str]]:
    return [
        [
            f"{r.tokens} x {r.choices}",
            f"{r.chunks:,}",
            f"{r.baseline_chunk_ns:,.0f}",
            f"{r.patched_chunk_ns:,.0f}",
            f"{pct(r.patched_chunk_ns, r.baseline_chunk_ns):+.1f}%",
            f"{r.baseline_request_ns / 1e6:,.2f}",
            f"{r.patched_request_ns / 1e6:,.2f}",
            f"{pct(r.patched_request_ns, r.baseline_request_ns):+.1f}%",
            *(_bytes(alloc.peak(label, r.tokens, r.choices)) for label in LABELS),
        ]
        for r in sweep
    ]


def _bytes(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def table(title: str, columns: Sequence[str], rows: list[list[str]]) -> Table:
    """A console table whose first column is left-aligned and the others right-aligned."""
    t = Table(title=title, title_justify="left")
    for i, column in enumerate(columns):
        t.add_column(column, justify="left" if i == 0 else "right")
    for cells in rows:
        t.add_row(*cells)
    return t


def reference_table(ref: PairedChange) -> Table:
    return table(f"reference: {REFERENCE_TITLE}", REFERENCE_COLUMNS, _reference_cells(ref))


def sweep_table(sweep: list[SweepRow], alloc: AllocSummary) -> Table:
    title = (
        "scaling sweep (logprobs on, one token per result; ns/chunk = median per-chunk "
        "time; B/chunk = median tracemalloc peak per chunk)"
    )
    return table(title, SWEEP_COLUMNS, _sweep_cells(sweep, alloc))


def md_table(columns: Sequence[str], rows: list[list[str]]) -> list[str]:
    """The same table in Markdown, numbers right-aligned."""
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(columns))) + "|"
    return [head, rule, *("| " + " | ".join(r) + " |" for r in rows)]


def markdown(
    ref: PairedChange,
    sweep: list[SweepRow],
    alloc: AllocSummary,
    lines: list[str],
    plot: Path,
) -> str:
    """``bench.md``: both tables, the reference line, then ``lines`` (targets and notes)
    as printed."""
    parts = [
        f"Reference: {REFERENCE_TITLE}",
        "",
        *md_table(REFERENCE_COLUMNS, _reference_cells(ref)),
        "",
        reference_line(ref),
        "",
        "Scaling sweep (ns/chunk = median per-chunk time; B/chunk = median tracemalloc peak "
        "per chunk)",
        "",
        *md_table(SWEEP_COLUMNS, _sweep_cells(sweep, alloc)),
        "",
        *(f"    {line}" for line in lines),
        "",
        f"Plot: `{console.rel(plot)}` (per-chunk time against history length, {SIZES[-1]}-token streams)",
    ]
    return "\n".join(parts) + "\n"


def write_plot(rounds: list[SweepRound], path: Path) -> None:
    """Per-chunk time against history length from the longest streams, both trees."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=120)
    styles = {"baseline": "tab:red", "patched": "tab:blue"}
    for label in LABELS:
        for choices in CHOICES:
            bins: dict[int, list[float]] = {}
            for run in runs_of(rounds, label, SIZES[-1], choices):
                for b in run.bins:
                    bins.setdefault(b.lo, []).append(b.median_ns)
            # Chunks at full length are the finished choices' last reports (usage).
            xs = sorted(x for x in bins if x < SIZES[-1])
            ax.plot(
                [x * 1.414 for x in xs],  # geometric centre of [lo, 2 lo)
                [statistics.median(bins[x]) / 1000 for x in xs],
                color=styles[label],
                linestyle="-" if choices == 1 else "--",
                marker="o",
                markersize=3,
                label=f"{label}, {choices} choice{'s' * (choices > 1)}",
            )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("history length of the choice (tokens already streamed)")
    ax.set_ylabel("handler time per chunk (µs, median per bin)")
    ax.set_title(f"dynamo TRT-LLM handler, {SIZES[-1]}-token streams, logprobs on", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    png = io.BytesIO()
    try:
        fig.savefig(png, format="png")
    finally:
        plt.close(fig)
    files.write_atomic(path, png.getvalue())
