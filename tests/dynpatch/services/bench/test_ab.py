"""The time-based A/B's figures: the paired change with its bootstrap interval, and a
record that says it is informative."""

from __future__ import annotations

import pytest

from dynpatch.services.bench import ab


def test_the_paired_interval_brackets_the_median_is_reproducible_and_refuses_bad_input() -> None:
    base = [1000, 1010, 990, 1005, 995, 1020, 980, 1000, 1015, 985]
    cand = [900, 940, 880, 930, 905, 950, 860, 920, 935, 890]
    a = ab.paired_change(base, cand, seed=7)
    assert a == ab.paired_change(base, cand, seed=7) and a.baseline_median == 1000
    assert a.ci_low_pct <= a.change_pct <= a.ci_high_pct < 0
    # Pairing matters: the differences are tight even though the runs drift.
    assert a.ci_high_pct - a.ci_low_pct < 6
    for bad, match in (([1.0, 2.0], [1.0]), "candidate"), (([], []), "0 baseline"):
        with pytest.raises(ValueError, match=match):
            ab.paired_change(*bad)
    with pytest.raises(ValueError, match="positive"):
        ab.paired_change([0.0], [1.0])


def test_the_record_is_informative_and_its_line_says_what_was_timed() -> None:
    ops = {"baseline": [20_000_000] * 3, "patched": [17_000_000] * 3}  # patched 15 % faster
    got = ab.summary(ops, 2.5)
    assert got["informative"] is True and got["ops_ns"] == ops
    change = got["change"]
    assert (change["pairs"], change["change_pct"], change["ci_low_pct"]) == (3, -15.0, -15.0)
    assert got["line"] == (
        "A/B, time-based (informative, not gated): 256x4, handler CPU time per request, 3 "
        "interleaved op pairs after 5 warm-up ops per tree: baseline 20.00 ms, patched 17.00 "
        "ms; paired median change -15.0% (95% bootstrap CI -15.0% .. -15.0%); load average 2.50"
    )
