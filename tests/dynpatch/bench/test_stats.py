"""Statistics and target evaluation of the bench stage, on small synthetic inputs."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from dynpatch import bench
from dynpatch.replay import stats


def test_paired_change_of_a_constant_saving_has_a_degenerate_interval() -> None:
    base = [100.0, 110.0, 90.0, 105.0]
    cand = [b - 10 for b in base]
    r = stats.paired_change(base, cand, resamples=500, seed=1)
    assert r.pairs == 4
    assert r.baseline_median == 102.5
    assert r.change_median == -10
    assert r.change_pct == pytest.approx(-10 / 102.5 * 100)
    assert r.ci_low_pct == r.ci_high_pct == pytest.approx(r.change_pct)


def test_paired_change_interval_brackets_the_median_and_is_reproducible() -> None:
    base = [1000, 1010, 990, 1005, 995, 1020, 980, 1000, 1015, 985]
    cand = [900, 940, 880, 930, 905, 950, 860, 920, 935, 890]
    a = stats.paired_change(base, cand, seed=7)
    b = stats.paired_change(base, cand, seed=7)
    assert a == b
    assert a.ci_low_pct <= a.change_pct <= a.ci_high_pct < 0
    # Pairing matters: the differences are tight even though the runs drift.
    assert a.ci_high_pct - a.ci_low_pct < 6


def test_paired_change_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="candidate"):
        stats.paired_change([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="no pairs"):
        stats.paired_change([], [])
    with pytest.raises(ValueError, match="level"):
        stats.paired_change([1.0], [1.0], level=1.5)


def test_percentile_and_slope() -> None:
    assert stats.percentile([1, 2, 3, 4, 5], 0.5) == 3
    assert stats.percentile([0, 10], 0.25) == 2.5
    assert stats.slope([0, 1, 2, 3], [5, 13, 21, 29]) == pytest.approx(8.0)
    assert stats.slope([4, 4, 4], [1, 2, 3]) == 0.0
    with pytest.raises(ValueError):
        stats.slope([], [])


# --- targets --------------------------------------------------------------------------


def _row(
    tokens: int, choices: int, base_req: float, pat_req: float, base_c: float, pat_c: float
) -> dict[str, Any]:
    return {
        "tokens": tokens,
        "choices": choices,
        "chunks": tokens * choices,
        "baseline_request_ns": base_req,
        "patched_request_ns": pat_req,
        "baseline_chunk_ns": base_c,
        "patched_chunk_ns": pat_c,
    }


def _sweep(patched_16k_chunk: float = 5100.0, patched_4096: float = 5.0e6) -> list[dict[str, Any]]:
    rows = []
    for n in bench.SIZES:
        for c in bench.CHOICES:
            pat_c = patched_16k_chunk if n == bench.SIZES[-1] else 5000.0
            pat_req = patched_4096 if (n, c) == (4096, 1) else n * c * 5000.0
            rows.append(_row(n, c, n * c * 9000.0, pat_req, 5000.0 + n, pat_c))
    return rows


def _alloc(patched_slope: float) -> dict[str, Any]:
    return {
        "per_case": [],
        "slope_bytes_per_token": {
            "baseline": {"1": 8.0, "4": 8.0},
            "patched": {"1": patched_slope, "4": 0.0},
        },
    }


def _reference(high: float) -> stats.PairedChange:
    return stats.PairedChange(10, 1e6, 9e5, -1e5, -10.0, -12.0, high, 0.95, 1000, 0)


def test_all_targets_met() -> None:
    targets = bench.evaluate(_reference(-7.5), _sweep(), _alloc(0.0))
    assert [t.met for t in targets] == [True, True, True, True]
    assert targets[0].line().endswith("-> met")
    assert "-7.5%" in targets[0].line()


def test_each_target_can_fail() -> None:
    targets = bench.evaluate(
        _reference(-4.0),  # upper bound not below -5 %
        _sweep(patched_16k_chunk=5600.0, patched_4096=4096 * 9000.0 * 0.7),  # +12 %, -30 %
        _alloc(8.0),  # proportional to history
    )
    assert [t.met for t in targets] == [False, False, False, False]
    assert all(t.line().endswith("-> NOT MET") for t in targets)
    assert "-30.0%" in targets[1].detail
    assert "+12.0%" in targets[2].detail


# --- aggregation ----------------------------------------------------------------------


def _case(
    tokens: int, choices: int, ops: list[int], per_chunk: list[float], alloc: list[list[int]]
) -> dict[str, Any]:
    return {
        "case": {"tokens": tokens, "choices": choices, "k": 1},
        "chunks": tokens * choices,
        "ops_ns": ops,
        "chunk_median_ns": per_chunk[0],
        "bins": [{"lo": 1, "hi": 2, "count": 1, "median_ns": per_chunk[0]}],
        "alloc": alloc,
    }


def _rounds() -> list[dict[str, Any]]:
    def tree(factor: float, bytes_per_token: int) -> list[dict[str, Any]]:
        return [
            _case(
                n,
                c,
                [int(n * c * factor)],
                [factor],
                [[h, 500 + bytes_per_token * h] for h in (1, n // 2, n)],
            )
            for n in bench.SIZES
            for c in bench.CHOICES
        ]

    return [
        {"order": ["baseline", "patched"], "baseline": tree(10, 8), "patched": tree(4, 0)},
        {"order": ["patched", "baseline"], "baseline": tree(12, 8), "patched": tree(5, 0)},
    ]


def test_sweep_rows_take_medians_over_rounds() -> None:
    rows = bench.sweep_rows(_rounds())
    row = next(r for r in rows if (r["tokens"], r["choices"]) == (1024, 4))
    assert row["baseline_request_ns"] == pytest.approx(1024 * 4 * 11)
    assert row["patched_chunk_ns"] == pytest.approx(4.5)
    assert len(rows) == len(bench.SIZES) * len(bench.CHOICES)


def test_alloc_summary_slopes_come_from_the_first_round() -> None:
    alloc = bench.alloc_summary(_rounds())
    assert alloc["slope_bytes_per_token"]["baseline"]["1"] == pytest.approx(8.0)
    assert alloc["slope_bytes_per_token"]["patched"]["4"] == pytest.approx(0.0)
    medians = {
        (a["tree"], a["tokens"], a["choices"]): a["median_peak_bytes"] for a in alloc["per_case"]
    }
    assert medians[("baseline", 256, 1)] == 500 + 8 * 128


def test_markdown_carries_tables_and_target_lines_as_printed(tmp_path: Path) -> None:
    rounds = _rounds()
    sweep, alloc = bench.sweep_rows(rounds), bench.alloc_summary(rounds)
    ref = _reference(-7.5)
    lines = [t.line() for t in bench.evaluate(ref, sweep, alloc)]
    md = bench.markdown(
        ref, bench.reference_line(ref), sweep, alloc, lines, ["note"], tmp_path / "p.png"
    )
    assert "| tree | ns/op | ops/s |" in md
    assert "| 16384 x 4 |" in md
    for line in lines:
        assert f"    {line}" in md
    assert bench.reference_line(ref) in md


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is installed by `nox -s bench`",
)
def test_plot_is_written(tmp_path: Path) -> None:
    path = tmp_path / "per_chunk.png"
    bench.write_plot(_rounds(), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_within_stream_line_compares_late_and_early_bins_of_the_longest_stream() -> None:
    def case(choices: int, early: float, late: float) -> dict[str, Any]:
        entry = _case(bench.SIZES[-1], choices, [1], [1.0], [])
        entry["bins"] = [
            {"lo": 256, "hi": 512, "ops": 1, "median_ns": early},
            {"lo": bench.SIZES[-1] // 2, "hi": bench.SIZES[-1], "ops": 1, "median_ns": late},
        ]
        return entry

    rounds = [
        {
            "baseline": [case(1, 1000, 4000), case(4, 1000, 10000)],
            "patched": [case(1, 1000, 1050), case(4, 1000, 960)],
        }
    ]
    line = bench.within_stream_line(rounds)
    assert line.endswith(
        "baseline +300.0% (1ch), baseline +900.0% (4ch), patched +5.0% (1ch), patched -4.0% (4ch)"
    )
