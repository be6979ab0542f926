"""The benchmark's statistics: the paired change with its bootstrap interval, quantiles
and slopes, on small inputs that can be checked by hand."""

from __future__ import annotations

import pytest

from dynpatch.bench import stats


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
