"""What is counted, and the bench's children run for real on the fake tree: counted under
callgrind, and natively (allocation, the A/B's turns)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.replay import callgrind, counted, runner, scenarios
from dynpatch.replay.script import chunk_history
from dynpatch.services.bench import plan, valgrind
from dynpatch.services.bench.counts import Case
from tests.fixtures.replay import fake_dynamo_tree


def test_a_run_counts_both_request_cases_and_windows_of_both_streams() -> None:
    whats = [(m["what"], m["case"]["tokens"], m["case"]["choices"]) for m in plan.measures()]
    requests = [(w, t, c) for t, c in ((256, 4), (4096, 1)) for w in ("request", "engine")]
    assert whats == [*requests, ("windows", 16384, 1), ("windows", 16384, 4)]
    assert (plan.EARLY, plan.LATE) == ((256, 512), (15872, 16128))
    # Every window lies inside the 16384-token streams, after their first chunk.
    history = chunk_history(scenarios.stream(plan.STREAM_TOKENS, 1))
    ranges = [counted.chunk_range(history, lo, hi) for lo, hi in plan.WINDOWS]
    assert ranges[0] == (255, 511) and ranges[-1] == (15871, 16127)


def test_tasks_run_two_at_a_time_and_the_first_failure_is_raised_after_the_rest() -> None:
    running: list[str] = []
    peak: list[int] = []

    def task(name: str, fail: bool = False) -> tuple[str, Callable[[], str]]:
        def run() -> str:
            running.append(name)
            peak.append(len(running))
            time.sleep(0.05)
            running.remove(name)
            if fail:
                raise ToolkitError(f"{name} broke")
            return name

        return name, run

    seen: dict[str, float] = {}
    done = plan.run_all([task("a"), task("b"), task("c")], seen)
    assert done == {"a": "a", "b": "b", "c": "c"} and max(peak) == 2 and sorted(seen) == [*done]
    seen.clear()
    with pytest.raises(ToolkitError, match="b broke"):
        plan.run_all([task("a"), task("b", fail=True), task("c")], seen)
    assert sorted(seen) == ["a", "c"]  # the others still ran to their end


@pytest.mark.skipif(
    shutil.which("valgrind") is None or not callgrind.supported(), reason="needs valgrind (amd64)"
)
def test_one_counted_child_under_callgrind_reports_every_part_of_each_trees_forked_runs(
    tmp_path: Path,
) -> None:
    # The fake handler copies the whole history into every chunk: late chunks cost more.
    trees = [
        runner.Tree("baseline", fake_dynamo_tree(tmp_path / "b")),
        runner.Tree("patched", fake_dynamo_tree(tmp_path / "p", new_token_ids=True)),
    ]
    case, stream = Case(16, 2), Case(256, 1)
    full = [
        {"what": "request", "case": case.to_json()},
        {"what": "engine", "case": case.to_json()},
        {"what": "windows", "case": stream.to_json(), "windows": [[16, 32], [224, 240]]},
    ]
    again = [{"what": "request", "case": case.to_json()}]
    runs = {"baseline": [again], "patched": [full, again]}
    got = plan.count(trees, runs, tmp_path / "c", valgrind_path=valgrind.find())
    assert [got["baseline"].hello["has_new_token_ids"], len(got["baseline"].runs)] == [False, 1]
    counts, second = got["patched"].runs
    labels = ["request-16x2", "engine-16x2", "windows-256x1-16-32", "windows-256x1-224-240"]
    assert [p.label for p in counts.parts] == labels
    request, engine = counts.request(case), counts.request(case, "engine")
    assert 0 < engine.instructions < request.instructions and request.chunks == 16 * 2 * 2
    early, late = counts.windows(stream)
    assert early.chunks == late.chunks == 16
    assert late.per_chunk > 1.1 * early.per_chunk  # a copy of 224 tokens against 16
    assert got["patched"].hello["has_new_token_ids"] is True
    # Both runs forked from one copy: the same memory image, the same count.
    assert [p.label for p in second.parts] == ["request-16x2"]
    assert second.request(case).instructions == request.instructions
    assert len(list((tmp_path / "c").glob("callgrind.out.*.1"))) == 3  # one per run


def test_native_children_sample_allocation_and_the_pair_times_its_ops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan, "STREAMS", (Case(32, 1),))
    monkeypatch.setattr(plan, "AB_PAIRS", 3)
    monkeypatch.setattr(plan, "ALLOC_SAMPLES", 4)
    trees = {
        "baseline": fake_dynamo_tree(tmp_path / "b"),
        "patched": fake_dynamo_tree(tmp_path / "p", new_token_ids=True),
        "alternative": fake_dynamo_tree(tmp_path / "a"),
    }
    found, loadavg = plan.native({t: runner.Tree(t, s) for t, s in trees.items()}, tmp_path / "n")
    assert loadavg >= 0 and found["patched"]["has_new_token_ids"]
    assert [len(found[t]["alloc"]["1"]) for t in trees] == [5, 5, 5]  # chunks 1, 8, ... 29
    assert [len(found[t]["ops_ns"]) for t in trees] == [3, 3, 0]  # the alternative: not timed
    logs = ["alternative.log", "baseline.log", "child.log", "patched.log"]
    assert sorted(p.name for p in (tmp_path / "n").iterdir()) == logs  # the FIFOs are gone
