"""The bench's tables, Markdown and plot, on synthetic measurements."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from rich.console import Console

from dynpatch.bench import report, targets
from tests.fixtures import bench as synthetic


def rendered(table: object) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(table)
    return console.export_text()


def test_markdown_carries_tables_and_target_lines_as_printed(tmp_path: Path) -> None:
    rounds = synthetic.rounds()
    sweep, alloc = targets.sweep_rows(rounds), targets.alloc_summary(rounds)
    ref = synthetic.reference(-7.5)
    lines = [t.line() for t in targets.evaluate(ref, sweep, alloc, synthetic.within())]
    md = report.markdown(ref, sweep, alloc, [*lines, "note"], tmp_path / "p.png")
    assert "| tree | ns/op | ops/s |" in md
    assert "| 16384 x 4 |" in md
    for line in [*lines, "note"]:
        assert f"    {line}" in md
    assert report.reference_line(ref) in md
    assert md.endswith("(per-chunk time against history length, 16384-token streams)\n")


def test_markdown_tables_align_numbers_right() -> None:
    md = report.markdown(
        synthetic.reference(-7.5),
        synthetic.sweep(),
        synthetic.alloc(0.0),
        [],
        Path("p.png"),
    )
    assert "|---|---:|---:|\n" in md
    assert "|---|" + "---:|" * (len(report.SWEEP_COLUMNS) - 1) + "\n" in md


def test_sweep_cells_show_changes_and_n_a_without_allocation_samples() -> None:
    rows = report._sweep_cells([synthetic.row(4096, 1, 20e6, 10e6, 4000, 3000)], synthetic.alloc(0))
    assert rows == [
        ["4096 x 1", "4,096", "4,000", "3,000", "-25.0%", "20.00", "10.00", "-50.0%", "n/a", "n/a"]
    ]


def test_sweep_cells_show_the_median_peaks_per_tree() -> None:
    rounds = synthetic.rounds()
    sweep, alloc = targets.sweep_rows(rounds), targets.alloc_summary(rounds)
    first = report._sweep_cells(sweep, alloc)[0]
    assert first[0] == "256 x 1" and first[-2:] == ["1,524", "500"]


def test_reference_line_and_table() -> None:
    ref = synthetic.reference(-7.5)
    assert report.reference_line(ref) == (
        "paired median change (candidate - baseline, 10 pairs): -10.00% of the baseline "
        "median, 95% bootstrap CI -12.00% .. -7.50%"
    )
    table = report.reference_table(ref)
    assert table.title == (
        "reference: 256 tokens x 4 interleaved choices, logprobs on "
        "(op = one request; handler CPU time; medians over pairs)"
    )
    text = rendered(table)
    assert "│ baseline │ 1,000,000 │ 1,000.0 │" in text
    assert "│ patched  │   900,000 │ 1,111.1 │" in text


def test_sweep_table_has_the_columns_in_order() -> None:
    table = report.sweep_table(synthetic.sweep(), synthetic.alloc(0.0))
    assert str(table.title).startswith("scaling sweep (logprobs on, one token per result;")
    assert [str(c.header) for c in table.columns] == list(report.SWEEP_COLUMNS)
    text = rendered(table)
    assert "│ 256 x 1          │" in text  # the first column is left-aligned
    header = next(line for line in text.splitlines() if "chunks" in line)
    assert header.index("tokens x choices") < header.index("chunks") < header.index("B/chunk")


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is installed by `nox -s bench`",
)
def test_plot_is_written(tmp_path: Path) -> None:
    path = tmp_path / "per_chunk.png"
    report.write_plot(synthetic.rounds(), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["per_chunk.png"]
