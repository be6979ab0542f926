"""Measuring in worker pairs, with fake workers: the alternation of the ops, the sweep's
case order and repeats, the allocation samples, and closing both workers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from dynpatch.bench import measure
from dynpatch.bench.records import Bin, Case
from dynpatch.bench.settings import ALLOC_SAMPLES, REFERENCE, Settings, sweep_cases
from dynpatch.errors import ToolkitError
from dynpatch.replay import runner


class FakeWorker:
    """Answers like a ``--serve`` worker; every command goes to the shared ``log``."""

    def __init__(self, label: str, log: list[tuple[str, dict[str, Any]]]):
        self.label, self.log = label, log
        self.hello = {"ok": True, "tree": label}
        self.closed = False

    def ask(self, cmd: dict[str, Any]) -> dict[str, Any]:
        self.log.append((self.label, cmd))
        if cmd["cmd"] == "alloc":
            return {"alloc": [[1, 10], [2, 20]]}
        ns = 100 if self.label == "baseline" else 60
        reply: dict[str, Any] = {"chunks": 4, "ops_ns": [ns] * cmd["ops"]}
        if cmd.get("stamps"):
            reply["per_op_chunk_median_ns"] = [ns / 10]
            reply["bins"] = [{"lo": 1, "hi": 2, "count": 3, "median_ns": ns / 10}]
        return reply


class FakePairs:
    def __init__(self) -> None:
        self.log: list[tuple[str, dict[str, Any]]] = []
        self.steps: list[str] = []

    @contextmanager
    def pair(self, what: str) -> Iterator[dict[str, FakeWorker]]:
        self.steps.append(what)
        yield {label: FakeWorker(label, self.log) for label in ("baseline", "patched")}


def settings(**kw: Any) -> Settings:
    values = {"quick": True, "pairs": 2, "ops": 3, "warmup": 2, "rounds": 2, "min_chunks": 2048}
    return Settings(**(values | kw))


def test_reference_ops_alternate_after_the_warm_up() -> None:
    pairs = FakePairs()
    got = measure.run_reference(settings(), pairs)  # type: ignore[arg-type]
    assert pairs.steps == ["reference pair 1", "reference pair 2"]
    first = pairs.log[:8]
    assert [(label, cmd["ops"]) for label, cmd in first] == [
        ("baseline", 2),
        ("patched", 2),
        ("baseline", 1),
        ("patched", 1),
        ("patched", 1),
        ("baseline", 1),
        ("baseline", 1),
        ("patched", 1),
    ]
    assert all(cmd["case"] == REFERENCE.to_json() for _, cmd in pairs.log)
    assert [p.ops["baseline"].ops_ns for p in got] == [[100] * 3] * 2
    assert got[0].ops["patched"].median_ns == 60
    assert got[0].hello["patched"] == {"ok": True, "tree": "patched"}


def test_no_warm_up_sends_none() -> None:
    pairs = FakePairs()
    measure.run_reference(settings(warmup=0, pairs=1, ops=1), pairs)  # type: ignore[arg-type]
    assert [cmd["ops"] for _, cmd in pairs.log] == [1, 1]


def test_the_sweep_reverses_the_case_order_every_other_round_and_samples_once() -> None:
    pairs = FakePairs()
    rounds = measure.run_sweep(settings(warmup=0), pairs)  # type: ignore[arg-type]
    assert pairs.steps == ["sweep round 1", "sweep round 2"]
    cases = sweep_cases()
    assert [run.case for run in rounds[0]["baseline"]] == cases
    assert [run.case for run in rounds[1]["baseline"]] == cases[::-1]
    assert all(run.alloc is not None for run in rounds[0]["patched"])
    assert all(run.alloc is None for run in rounds[1]["patched"])
    allocs = [cmd for _, cmd in pairs.log if cmd["cmd"] == "alloc"]
    assert len(allocs) == 2 * len(cases) and allocs[0]["samples"] == ALLOC_SAMPLES


def test_short_sweep_streams_repeat_until_min_chunks() -> None:
    pairs = FakePairs()
    rounds = measure.run_sweep(settings(rounds=1, warmup=0), pairs)  # type: ignore[arg-type]
    first = rounds[0]["baseline"][0]  # 256 x 1 with 2048 chunks wanted: 8 single ops
    assert first.case == Case(256, 1) and len(first.ops_ns) == 8
    timed = [(label, cmd) for label, cmd in pairs.log if cmd["cmd"] == "time"]
    assert [label for label, _ in timed[:4]] == ["baseline", "patched", "patched", "baseline"]
    assert all(cmd["stamps"] and cmd["ops"] == 1 for _, cmd in timed)
    big = next(run for run in rounds[0]["patched"] if run.case == Case(16384, 4))
    assert len(big.ops_ns) == 1


def test_merge_takes_the_median_over_ops_of_each_bin() -> None:
    replies = [
        {
            "chunks": 4,
            "ops_ns": [10],
            "per_op_chunk_median_ns": [1.0],
            "bins": [{"lo": 1, "median_ns": 1.0}, {"lo": 2, "median_ns": 5.0}],
        },
        {
            "chunks": 4,
            "ops_ns": [30],
            "per_op_chunk_median_ns": [3.0],
            "bins": [{"lo": 1, "median_ns": 3.0}],
        },
    ]
    run = measure.merge(Case(4, 1), replies)
    assert run.ops_ns == [10, 30] and run.chunk_median_ns == 2.0
    assert run.bins == [Bin(1, 2, 2, 2.0), Bin(2, 4, 1, 5.0)]


class Steps:
    def __init__(self) -> None:
        self.events: list[str] = []

    def start(self, what: str) -> None:
        self.events.append(f"start {what}")

    def done(self) -> None:
        self.events.append("done")


def test_worker_pairs_close_both_workers_even_when_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[Any] = []

    class Worker:
        def __init__(self, tree: runner.Tree, log: Path, *, python: str):
            self.tree, self.log, self.closed = tree, log, False
            made.append(self)

        def ready(self) -> None:
            if self.tree.label == "patched":
                raise ToolkitError("patched replay refused to run")

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(runner, "Worker", Worker)
    trees = {label: runner.Tree(label, tmp_path) for label in ("baseline", "patched")}
    steps = Steps()
    pairs = measure.WorkerPairs(trees, tmp_path / "logs", "python", steps)  # type: ignore[arg-type]
    with pytest.raises(ToolkitError, match="refused"), pairs.pair("sweep round 1"):
        pass
    assert [w.closed for w in made] == [True, True]
    assert [w.log.name for w in made] == ["sweep-round-1-baseline.log", "sweep-round-1-patched.log"]
    assert steps.events == ["start sweep round 1"]  # a failed pair is no finished step

    monkeypatch.setattr(Worker, "ready", lambda self: None)
    with pairs.pair("reference pair 1") as pair:
        assert set(pair) == {"baseline", "patched"}
    assert all(w.closed for w in made[2:]) and steps.events[-1] == "done"
