"""What a bench run shows: the per-request and per-chunk tables (console and Markdown),
the slope line, the plot and its companion data (CSV)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from dynpatch.bench.counts import TreeCounts
from dynpatch.bench.plan import REQUEST_CASES, STREAMS
from dynpatch.io import files

REQUEST_TITLE = (
    "instructions per request (callgrind Ir; logprobs on, one token per result; "
    "one request after one warm-up)"
)
CHUNK_TITLE = (
    f"instructions per chunk inside one {STREAMS[0].tokens}-token stream "
    "(the chunks whose choice history lies in the window)"
)
COLORS = {
    "baseline": "tab:red",
    "patched": "tab:blue",
    "alternative": "tab:green",
    "mutant": "tab:orange",
}


def _n(value: float) -> str:
    return f"{value:,.0f}"


def table(title: str, columns: Sequence[str], rows: list[list[str]]) -> Table:
    """A console table whose first column is left-aligned and the others right-aligned."""
    t = Table(title=title, title_justify="left")
    for i, column in enumerate(columns):
        t.add_column(column, justify="left" if i == 0 else "right")
    for cells in rows:
        t.add_row(*cells)
    return t


def md_table(columns: Sequence[str], rows: list[list[str]]) -> list[str]:
    """The same table in Markdown, numbers right-aligned."""
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(columns))) + "|"
    return [head, rule, *("| " + " | ".join(r) + " |" for r in rows)]


def figures(trees: dict[str, TreeCounts]) -> dict[str, Any]:
    """The derived figures of ``trees`` (the baseline first): per request, per chunk."""
    base = trees["baseline"]
    requests: dict[str, Any] = {}
    for case in REQUEST_CASES:
        row: dict[str, Any] = {}
        for t, c in trees.items():
            total, engine = c.request(case).per_request, c.engine(case).per_request
            row[t] = {"instructions": total, "engine_double": engine, "handler_own": total - engine}
            if t != "baseline":
                row[f"{t}/baseline"] = total / base.request(case).per_request
                own = row["baseline"]["handler_own"]
                row[f"{t}/baseline handler_own"] = (total - engine) / own
        requests[f"{case.tokens}x{case.choices}"] = {"chunks": base.request(case).chunks, **row}
    per_chunk: dict[str, Any] = {}
    for stream in STREAMS:
        entry: dict[str, Any] = {}
        for t, c in trees.items():
            entry[t] = {
                "windows": [
                    {"history": list(w.history or ()), "chunks": w.chunks, "per_chunk": w.per_chunk}
                    for w in c.windows(stream)
                ],
                "late_vs_early_pct": c.late_vs_early_pct(stream),
                "slope_per_history_token": c.slope(stream),
            }
        per_chunk[f"{stream.tokens}x{stream.choices}"] = entry
    return {"requests": requests, "per_chunk": per_chunk}


def request_rows(trees: dict[str, TreeCounts]) -> tuple[list[str], list[list[str]]]:
    """Columns and rows of the per-request table: each tree, each tree against the
    baseline, the engine double alone and the handler's own share (total - engine)."""
    others = [t for t in trees if t != "baseline"]
    columns = ["tokens x choices", "chunks", "baseline"]
    for t in others:
        columns += [t, f"{t}/baseline"]
    columns += ["engine double alone"]
    columns += [f"handler's own, {t}" for t in trees] + ["handler's own, patched/baseline"]
    rows = []
    for name, row in figures(trees)["requests"].items():
        cells = [
            name.replace("x", " x "),
            f"{row['chunks']:,}",
            _n(row["baseline"]["instructions"]),
        ]
        for t in others:
            cells += [_n(row[t]["instructions"]), f"{row[f'{t}/baseline']:.3f}"]
        cells.append(_n(row["baseline"]["engine_double"]))
        cells += [_n(row[t]["handler_own"]) for t in trees]
        rows.append([*cells, f"{row['patched/baseline handler_own']:.3f}"])
    return columns, rows


def chunk_rows(trees: dict[str, TreeCounts]) -> tuple[list[str], list[list[str]]]:
    columns = ["choices", "history", *trees]
    rows = []
    for stream in STREAMS:
        windows = {t: c.windows(stream) for t, c in trees.items()}
        for i, w in enumerate(windows["baseline"]):
            assert w.history is not None
            row = [str(stream.choices), f"{w.history[0]}-{w.history[1] - 1}"]
            rows.append(row + [_n(windows[t][i].per_chunk) for t in trees])
    return columns, rows


def slope_line(trees: dict[str, TreeCounts]) -> str:
    """Each tree's per-chunk slope over the windows, in instructions per history token."""
    parts = []
    for t, c in trees.items():
        # round first, so that a slope of -0.001 reads 0.00 and not -0.00
        values = ", ".join(f"{round(c.slope(s), 2) + 0.0:.2f} ({s.choices}ch)" for s in STREAMS)
        parts.append(f"{t} {values}")
    return "slope of instructions per chunk over history, per history token: " + "; ".join(parts)


def markdown(trees: dict[str, TreeCounts], lines: list[str]) -> str:
    """Both tables, then ``lines`` (slopes, gates, how measured) as printed."""
    parts = [
        f"Instruction counts: {REQUEST_TITLE}",
        "",
        *md_table(*request_rows(trees)),
        "",
        f"Per chunk: {CHUNK_TITLE}",
        "",
        *md_table(*chunk_rows(trees)),
        "",
        *(f"    {line}" for line in lines),
    ]
    return "\n".join(parts) + "\n"


def plot_points(trees: dict[str, TreeCounts]) -> list[dict[str, Any]]:
    """What the plot shows, one row per tree, stream and window (the companion CSV)."""
    points = []
    for t, c in trees.items():
        for stream in STREAMS:
            for w in c.windows(stream):
                assert w.history is not None
                points.append(
                    {
                        "tree": t,
                        "choices": stream.choices,
                        "history_lo": w.history[0],
                        "history_hi": w.history[1],
                        "chunks": w.chunks,
                        "instructions": w.instructions,
                        "instructions_per_chunk": round(w.per_chunk, 1),
                    }
                )
    return points


def points_csv(points: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(points[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(points)
    return out.getvalue()


def plot_png(points: list[dict[str, Any]]) -> bytes:
    """Instructions per chunk against history, per tree and number of choices."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=120)
    lines: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for p in points:
        lines.setdefault((p["tree"], p["choices"]), []).append(p)
    for (tree, choices), ps in lines.items():
        ax.plot(
            [(p["history_lo"] + p["history_hi"]) / 2 for p in ps],
            [p["instructions_per_chunk"] / 1000 for p in ps],
            color=COLORS.get(tree, "tab:gray"),
            linestyle="-" if choices == 1 else "--",
            marker="o",
            markersize=4,
            label=f"{tree}, {choices} choice{'s' * (choices > 1)}",
        )
    ax.set_xlabel("history length of the choice (tokens already streamed)")
    ax.set_ylabel("instructions per chunk (thousands, callgrind Ir)")
    ax.set_title(
        f"dynamo TRT-LLM handler, one {STREAMS[0].tokens}-token stream, logprobs on",
        fontsize=10,
    )
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    png = io.BytesIO()
    try:
        # No timestamp in the file: the same counts give the same bytes.
        fig.savefig(png, format="png", metadata={"Software": None})
    finally:
        plt.close(fig)
    return png.getvalue()


def write_plot(points: list[dict[str, Any]], png: Path, companion: Path) -> None:
    files.write_atomic(png, plot_png(points))
    files.write_atomic(companion, points_csv(points))
