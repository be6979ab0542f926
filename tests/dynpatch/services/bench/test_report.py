"""What a bench run shows, on synthetic counts: its figures, its table, the slope line,
the plot."""

from __future__ import annotations

import importlib.util

import pytest

from dynpatch.services.bench import report
from tests.fixtures import bench as synthetic


def test_the_figures_give_each_tree_its_ratio_and_the_handler_s_own_share() -> None:
    figures = report.figures(synthetic.counted_trees())
    row = figures["requests"]["256x4"]
    assert row["chunks"] == 4096 and row["patched/baseline"] == pytest.approx(77 / 84)
    # engine double 10 M: the handler's own 74 M -> 67 M
    assert row["patched"]["handler_own"] == 67_000_000
    assert row["patched/baseline handler_own"] == pytest.approx(67 / 74)
    windows = figures["per_chunk"]["16384x1"]["baseline"]["windows"]
    assert [w["per_chunk"] for w in windows][::4] == [40_000, 243_000]


def test_the_table_has_one_row_per_tree_and_the_slope_line_each_tree_s_slopes() -> None:
    trees = synthetic.counted_trees()
    head, rule, base, patched = report.table(trees)
    assert head.startswith("| tree | 256x4 instructions per request | /baseline | 4096x1 ")
    assert rule == "|---|---:|---:|---:|---:|---:|---:|"
    assert base == "| baseline | 84,000,000 | 1.000 | 260,000,000 | 1.000 | +507.50% | +882.61% |"
    assert patched == "| patched | 77,000,000 | 0.917 | 140,000,000 | 0.538 | +0.00% | +0.00% |"
    assert report.slope_line(trees).endswith(
        "baseline 13.00 (1ch), 13.00 (4ch); patched 0.00 (1ch), 0.00 (4ch)"
    )


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is installed by `nox -s bench`",
)
def test_the_plot_is_a_png_whose_bytes_follow_from_the_counts() -> None:
    png = report.plot_png(synthetic.counted_trees())
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert report.plot_png(synthetic.counted_trees()) == png  # no timestamp in the file
