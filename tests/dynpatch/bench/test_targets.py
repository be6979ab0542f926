"""The bench's analysis and target verdicts, on small synthetic measurements."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dynpatch.bench import targets
from dynpatch.bench.records import Bin, Ops, ReferencePair
from dynpatch.bench.settings import BOOTSTRAP_SEED, CHOICES, SIZES
from tests.fixtures import bench as synthetic


def test_all_targets_met() -> None:
    verdicts = targets.evaluate(
        synthetic.reference(-7.5), synthetic.sweep(), synthetic.alloc(0.0), synthetic.within()
    )
    assert [t.met for t in verdicts] == [True, True, True, True]
    assert verdicts[0].line().endswith("-> met")
    assert "-7.5%" in verdicts[0].line()


def test_each_target_can_fail() -> None:
    verdicts = targets.evaluate(
        synthetic.reference(-4.0),  # upper bound not below -5 %
        synthetic.sweep(patched_4096=4096 * 9000.0 * 0.7),  # -30 %
        synthetic.alloc(8.0),  # proportional to history
        synthetic.within(patched_1=2.0, patched_4=-12.0),  # one stream's late chunks 12 % cheaper
    )
    assert [t.met for t in verdicts] == [False, False, False, False]
    assert all(t.line().endswith("-> NOT MET") for t in verdicts)
    assert "-30.0%" in verdicts[1].detail
    assert verdicts[2].detail == "1 choice +2.0%, 4 choices -12.0%"


def test_target_3_ignores_the_cross_request_comparison_and_needs_both_streams() -> None:
    # 16k chunks 40 % cheaper than 256-token ones (a request's fixed cost spread thinner):
    # not what target 3 looks at any more.
    sweep = synthetic.sweep(patched_16k_chunk=3000.0)
    args = (synthetic.reference(-7.5), sweep, synthetic.alloc(0.0))
    assert targets.evaluate(*args, synthetic.within())[2].met
    missing = targets.evaluate(*args, synthetic.within(patched_4=None))[2]
    assert not missing.met and missing.detail == "1 choice +2.0%, 4 choices n/a"
    assert "within one 16384-token stream, history 8192-16383 vs 256-511" in missing.label


def test_the_allocation_target_names_patched_then_baseline_and_a_missing_slope() -> None:
    summary = synthetic.alloc(0.25)
    del summary.slope_bytes_per_token["baseline"]["4"]
    within = synthetic.within()
    verdict = targets.evaluate(synthetic.reference(-7.5), synthetic.sweep(), summary, within)[3]
    assert verdict.detail == (
        "patched 0.250 B/token (1ch), 0.000 B/token (4ch); "
        "baseline 8.000 B/token (1ch), n/a B/token (4ch)"
    )
    del summary.slope_bytes_per_token["patched"]["1"]
    verdict = targets.evaluate(synthetic.reference(-7.5), synthetic.sweep(), summary, within)[3]
    assert not verdict.met


def test_reference_change_pairs_the_process_pair_medians() -> None:
    pairs = [
        ReferencePair({"baseline": Ops([100, 110, 90]), "patched": Ops([80, 70, 90])}, {}),
        ReferencePair({"baseline": Ops([200, 200]), "patched": Ops([150, 170])}, {}),
    ]
    change = targets.reference_change(pairs)
    assert (change.pairs, change.seed) == (2, BOOTSTRAP_SEED)
    assert change.baseline_median == 150  # of the pair medians 100 and 200
    assert change.change_median == pytest.approx(-30)  # of -20 and -40


def test_sweep_rows_take_medians_over_rounds() -> None:
    rows = targets.sweep_rows(synthetic.rounds())
    row = next(r for r in rows if (r.tokens, r.choices) == (1024, 4))
    assert row.baseline_request_ns == pytest.approx(1024 * 4 * 11)
    assert row.patched_chunk_ns == pytest.approx(4.5)
    assert len(rows) == len(SIZES) * len(CHOICES)


def test_alloc_summary_slopes_come_from_the_first_round() -> None:
    summary = targets.alloc_summary(synthetic.rounds())
    assert summary.slope_bytes_per_token["baseline"]["1"] == pytest.approx(8.0)
    assert summary.slope_bytes_per_token["patched"]["4"] == pytest.approx(0.0)
    medians = {(a.tree, a.tokens, a.choices): a.median_peak_bytes for a in summary.per_case}
    assert medians[("baseline", 256, 1)] == 500 + 8 * 128
    assert summary.peak("baseline", 256, 1) == 500 + 8 * 128
    assert summary.peak("baseline", 3, 1) is None


def test_a_case_without_allocation_samples_has_no_median_and_no_slope() -> None:
    first = synthetic.rounds()[0]
    first["patched"] = [replace(run, alloc=None) for run in first["patched"]]
    summary = targets.alloc_summary([first])
    assert {a.median_peak_bytes for a in summary.per_case if a.tree == "patched"} == {None}
    assert summary.slope_bytes_per_token["patched"] == {}


def test_within_stream_compares_late_and_early_bins_of_the_longest_stream() -> None:
    def case(choices: int, early: float, late: float):
        run = synthetic.case_run(SIZES[-1], choices, [1], 1.0, [])
        bins = [Bin(256, 512, 1, early), Bin(SIZES[-1] // 2, SIZES[-1], 1, late)]
        return replace(run, bins=bins)

    rounds = [
        {
            "baseline": [case(1, 1000, 4000), case(4, 1000, 10000)],
            "patched": [case(1, 1000, 1050), case(4, 1000, 960)],
        },
        {
            "baseline": [case(1, 1000, 4000), case(4, 1000, 10000)],
            "patched": [case(1, 1000, 1070), case(4, 1000, 980)],
        },
    ]
    within = targets.within_stream(rounds)
    assert within["patched"] == {"1": pytest.approx(6.0), "4": pytest.approx(-3.0)}
    assert targets.within_stream_line(within).endswith(
        "history 8192-16383 vs 256-511: +300.0% (1ch), +900.0% (4ch)"
    )
    first = rounds[0]
    no_late = [
        {label: [replace(r, bins=r.bins[:1]) for r in runs] for label, runs in first.items()}
    ]
    assert targets.within_stream(no_late)["patched"] == {"1": None, "4": None}
