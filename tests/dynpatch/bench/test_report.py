"""The instruction counts' tables, Markdown, plot data and plot, on synthetic counts."""

from __future__ import annotations

import csv
import importlib.util
import io

import pytest

from dynpatch.bench import report
from tests.fixtures import bench as synthetic


def test_the_request_table_has_each_tree_its_ratio_and_the_handler_s_own_share() -> None:
    columns, rows = report.request_rows(synthetic.counted_trees())
    assert columns[:5] == ["tokens x choices", "chunks", "baseline", "patched", "patched/baseline"]
    assert rows[0][:5] == ["256 x 4", "4,096", "84,000,000", "77,000,000", "0.917"]
    # engine double 10 M: the handler's own 74 M -> 67 M
    assert rows[0][5:] == ["10,000,000", "74,000,000", "67,000,000", "0.905"]
    assert rows[1][0] == "4096 x 1"


def test_the_chunk_table_and_the_slope_line_cover_every_window() -> None:
    trees = synthetic.counted_trees()
    columns, rows = report.chunk_rows(trees)
    assert columns == ["choices", "history", "baseline", "patched"]
    assert rows[0] == ["1", "256-511", "40,000", "30,000"]
    assert rows[4] == ["1", "15872-16127", "243,000", "30,000"]
    assert len(rows) == 10
    assert report.slope_line(trees).endswith(
        "baseline 13.00 (1ch), 13.00 (4ch); patched 0.00 (1ch), 0.00 (4ch)"
    )


def test_markdown_carries_both_tables_and_the_lines_as_printed() -> None:
    md = report.markdown(synthetic.counted_trees(), ["gate 1: x -> met", "how: y"])
    assert "| tokens x choices | chunks | baseline | patched |" in md
    assert "| 4 | 15872-16127 | 226,000 | 15,000 |" in md
    assert md.endswith("    gate 1: x -> met\n    how: y\n")


def test_the_plot_data_is_one_row_per_tree_stream_and_window() -> None:
    points = report.plot_points(synthetic.counted_trees())
    assert len(points) == 2 * 2 * 5
    rows = list(csv.DictReader(io.StringIO(report.points_csv(points))))
    assert rows[0] == {
        "tree": "baseline",
        "choices": "1",
        "history_lo": "256",
        "history_hi": "512",
        "chunks": "256",
        "instructions": "10240000",
        "instructions_per_chunk": "40000.0",
    }


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is installed by `nox -s bench`",
)
def test_the_plot_is_a_png_whose_bytes_follow_from_the_counts() -> None:
    points = report.plot_points(synthetic.counted_trees())
    png = report.plot_png(points)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert report.plot_png(points) == png  # no timestamp in the file
