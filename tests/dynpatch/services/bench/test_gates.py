"""The instruction-count gates and the two-run agreement, on synthetic counts."""

from __future__ import annotations

import pytest

from dynpatch.services.bench import gates
from tests.fixtures import bench as synthetic

TREES = ("baseline", "patched")
FLAT_ALLOC = {"baseline": {"1": 8.0, "4": 8.0}, "patched": {"1": 0.0, "4": -0.01}}


def test_every_gate_met_by_a_patch_that_saves_and_stays_flat() -> None:
    trees = synthetic.counted_trees()
    verdicts = gates.evaluate(trees["baseline"], trees["patched"], FLAT_ALLOC)
    assert [g.met for g in verdicts] == [True, True, True, True]
    assert verdicts[0].line() == (
        "gate 1: 256x4 instructions per request, patched/baseline <= 0.95: "
        "0.917 (84,000,000 -> 77,000,000) -> met"
    )
    assert verdicts[1].detail.startswith("0.538 ")
    assert verdicts[2].detail == "1 choice +0.00%, 4 choices +0.00%"
    assert "history 15872-16127 vs 256-511, within 3%" in verdicts[2].label


def test_each_gate_can_be_missed_and_names_the_tree_it_judged() -> None:
    trees = synthetic.counted_trees()
    mutant = synthetic.tree_counts(
        "mutant",
        (80_000_000, 157_000_000),  # 0.952 and 0.604: just over the limits
        per_chunk={1: (30_000, 30_000), 4: (15_000, 15_500)},  # +3.3 % late in a stream
    )
    alloc = {"baseline": {"1": 8.0, "4": 8.0}, "mutant": {"4": 0.5}}  # 1 choice: not measured
    verdicts = gates.evaluate(trees["baseline"], mutant, alloc, name="mutant")
    assert [g.met for g in verdicts] == [False, False, False, False]
    assert all(g.line().endswith("-> MISSED") for g in verdicts)
    assert "mutant/baseline <= 0.95" in verdicts[0].label
    assert verdicts[2].detail == "1 choice +0.00%, 4 choices +3.33%"
    assert verdicts[3].detail == (
        "mutant n/a B/token (1ch), 0.500 B/token (4ch); "
        "baseline 8.000 B/token (1ch), 8.000 B/token (4ch)"
    )


def test_a_per_chunk_count_that_falls_late_in_a_stream_misses_gate_3() -> None:
    trees = synthetic.counted_trees()
    falling = synthetic.tree_counts(
        "patched", (77_000_000, 140_000_000), per_chunk={1: (30_000, 30_000), 4: (15_000, 14_000)}
    )
    gate = gates.evaluate(trees["baseline"], falling, FLAT_ALLOC)[2]
    assert not gate.met
    assert gate.detail == "1 choice +0.00%, 4 choices -6.67%"


@pytest.mark.parametrize(
    ("again", "met", "apart"),
    [
        ((84_080_000, 77_000_000), True, "84,080,000 (0.095%); patched 77,000,000 and 77,000,000"),
        ((84_084_000, 77_000_000), True, "baseline 84,000,000 and 84,084,000 (0.100%)"),
        ((84_000_000, 77_080_000), False, "patched 77,000,000 and 77,080,000 (0.104%)"),
        ((84_100_000, 77_000_000), False, "(0.119%)"),  # the first tree apart, the last not
        ((84_000_000, 76_900_000), False, "(0.130%)"),  # lower the second time, as far apart
    ],
)
def test_two_runs_agree_within_a_tenth_of_a_percent_or_the_gate_says_by_how_much(
    again: tuple[int, int], met: bool, apart: str
) -> None:
    second = {t: synthetic.tree_counts(t, (n, 1)) for t, n in zip(TREES, again, strict=True)}
    gate = gates.agreement(synthetic.counted_trees(), second)
    assert gate.met is met and apart in gate.detail
    assert gate.label == (
        "two runs agree within 0.1% (256x4, each tree counted twice, both runs forked from one "
        "child)"
    )


@pytest.mark.parametrize(  # a slope falling as steeply misses gate 4 too
    ("slopes", "met"),
    [((0.99, -0.99), True), ((1.0, 0), False), ((0, -1.0), False), ((-8.0, 0.5), False)],
)
def test_each_gate_is_met_at_its_limit_and_allocation_under_one_byte_either_way(
    slopes: tuple[float, float], met: bool
) -> None:
    base = synthetic.tree_counts("baseline", (100_000_000, 100_000_000))
    at = synthetic.tree_counts(  # 0.95, 0.60, +3 % and -3 %: each limit exactly
        "patched", (95_000_000, 60_000_000), per_chunk={1: (30_000, 30_900), 4: (15_000, 14_550)}
    )
    alloc = {"patched": dict(zip(("1", "4"), slopes, strict=True))}
    assert [g.met for g in gates.evaluate(base, at, alloc)] == [True, True, True, met]


def test_a_tree_without_allocation_figures_misses_gate_4() -> None:
    trees = synthetic.counted_trees()
    gate = gates.evaluate(trees["baseline"], trees["patched"], {})[3]
    assert not gate.met
    assert gate.detail == "; ".join(
        f"{tree} n/a B/token (1ch), n/a B/token (4ch)" for tree in ("patched", "baseline")
    )
