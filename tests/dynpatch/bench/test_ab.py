"""The time-based A/B on stand-in workers: warm-up, interleaved op pairs, the paired
change with its bootstrap interval, and a line that says it is informative."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from dynpatch.bench import ab
from dynpatch.bench.plan import REFERENCE
from dynpatch.replay import runner

NS = {"baseline": 20_000_000, "patched": 17_000_000}  # per op: patched 15 % faster


class Worker:
    """Answers ``time`` with a fixed time per op for its tree; logs every ask."""

    asked: ClassVar[list[tuple[str, int]]] = []
    closed: ClassVar[list[str]] = []

    def __init__(self, tree: runner.Tree, log: Path, *, python: str) -> None:
        self.label = tree.label

    def ready(self) -> Worker:
        return self

    def ask(self, cmd: dict[str, Any]) -> dict[str, Any]:
        assert cmd["cmd"] == "time" and cmd["case"] == REFERENCE.to_json()
        Worker.asked.append((self.label, cmd["ops"]))
        return {"ops_ns": [NS[self.label]] * cmd["ops"]}

    def close(self) -> None:
        Worker.closed.append(self.label)


def test_the_ops_alternate_after_the_warm_up_and_the_change_is_paired(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(runner, "Worker", Worker)
    monkeypatch.setattr(ab, "PAIRS", 3)
    Worker.asked, Worker.closed = [], []
    trees = {t: runner.Tree(t, tmp_path / t) for t in ("baseline", "patched", "alternative")}
    got = ab.measure(trees, tmp_path / "logs", "python")
    b, p = ("baseline", 1), ("patched", 1)
    assert Worker.asked == [("baseline", ab.WARMUP), ("patched", ab.WARMUP), b, p, p, b, b, p]
    assert Worker.closed == ["baseline", "patched"]  # the alternative is not timed
    assert got.ops_ns == {t: [ns] * 3 for t, ns in NS.items()}
    assert (got.change.pairs, got.change.change_pct) == (3, -15.0)
    assert (got.change.ci_low_pct, got.change.ci_high_pct) == (-15.0, -15.0)
    assert got.line().startswith("A/B, time-based (informative, not gated): 256x4, ")
    assert "baseline 20.00 ms, patched 17.00 ms; paired median change -15.0% (95% " in got.line()
    assert got.to_json()["informative"] is True


def test_the_paired_interval_brackets_the_median_is_reproducible_and_refuses_bad_input() -> None:
    base = [1000, 1010, 990, 1005, 995, 1020, 980, 1000, 1015, 985]
    cand = [900, 940, 880, 930, 905, 950, 860, 920, 935, 890]
    a = ab.paired_change(base, cand, seed=7)
    assert a == ab.paired_change(base, cand, seed=7) and a.baseline_median == 1000
    assert a.ci_low_pct <= a.change_pct <= a.ci_high_pct < 0
    # Pairing matters: the differences are tight even though the runs drift.
    assert a.ci_high_pct - a.ci_low_pct < 6
    assert ab.percentile([1, 2, 3, 4, 5], 0.5) == 3 and ab.percentile([0, 10], 0.25) == 2.5
    for bad, match in (([1.0, 2.0], [1.0]), "candidate"), (([], []), "no pairs"):
        with pytest.raises(ValueError, match=match):
            ab.paired_change(*bad)
    with pytest.raises(ValueError, match="level"):
        ab.paired_change([1.0], [1.0], level=1.5)
