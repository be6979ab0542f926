"""What is counted, and a counted child run for real under callgrind on the fake tree."""

from __future__ import annotations

import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from dynpatch.bench import plan, valgrind
from dynpatch.bench.counts import Case
from dynpatch.errors import ToolkitError
from dynpatch.replay import callgrind, counted, runner, scenarios
from dynpatch.replay.script import chunk_history
from tests.fixtures.replay import fake_dynamo_tree


def test_the_main_job_counts_both_request_cases_and_windows_of_both_streams() -> None:
    job = plan.main_job()
    whats = [(m["what"], m["case"]["tokens"], m["case"]["choices"]) for m in job["measure"]]
    assert whats == [
        ("request", 256, 4),
        ("engine", 256, 4),
        ("request", 4096, 1),
        ("engine", 4096, 1),
        ("windows", 16384, 1),
        ("windows", 16384, 4),
    ]
    assert (plan.EARLY, plan.LATE) == ((256, 512), (15872, 16128))
    # Every window lies inside the 16384-token streams, after their first chunk.
    history = chunk_history(scenarios.stream(plan.STREAM_TOKENS, 1))
    ranges = [counted.chunk_range(history, lo, hi) for lo, hi in plan.WINDOWS]
    assert ranges[0] == (255, 511) and ranges[-1] == (15871, 16127)


def test_tasks_run_two_at_a_time_and_the_first_failure_is_raised_after_the_rest() -> None:
    running, peak, seen = [0], [0], []
    lock = threading.Lock()

    def task(name: str, fail: bool = False):  # type: ignore[no-untyped-def]
        def run() -> str:
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            time.sleep(0.05)
            with lock:
                running[0] -= 1
            if fail:
                raise ToolkitError(f"{name} broke")
            return name

        return (name, run)

    done = plan.run_all([task("a"), task("b"), task("c")], lambda n, s: seen.append(n))
    assert (
        done == {"a": "a", "b": "b", "c": "c"} and peak[0] == 2 and sorted(seen) == ["a", "b", "c"]
    )
    seen.clear()
    with pytest.raises(ToolkitError, match="b broke"):
        plan.run_all([task("a"), task("b", fail=True), task("c")], lambda n, s: seen.append(n))
    assert sorted(seen) == ["a", "c"]  # the others still ran to their end


def test_a_tree_without_dynamo_is_refused_before_valgrind_starts(tmp_path: Path) -> None:
    with pytest.raises(ToolkitError, match="no dynamo package"):
        plan.count(
            runner.Tree("patched", tmp_path),
            {},
            tmp_path / "c",
            valgrind_path="/bin/false",
            python=sys.executable,
        )


@pytest.mark.skipif(
    shutil.which("valgrind") is None or not callgrind.supported(), reason="needs valgrind (amd64)"
)
def test_a_counted_child_under_callgrind_reports_every_part_of_each_forked_run(
    tmp_path: Path,
) -> None:
    # The fake handler copies the whole history into every chunk: late chunks cost more.
    src = fake_dynamo_tree(tmp_path / "tree", new_token_ids=True)
    stream = Case(1024, 1)
    job = {
        "warmup": 1,
        "measure": [
            {"what": "request", "case": Case(32, 2).to_json()},
            {"what": "engine", "case": Case(32, 2).to_json()},
            {"what": "windows", "case": stream.to_json(), "windows": [[16, 48], [768, 800]]},
        ],
    }
    got = plan.count(
        runner.Tree("patched", src),
        job,
        tmp_path / "child",
        runs=2,
        valgrind_path=valgrind.find(),
        python=sys.executable,
    )
    counts, again = got.runs
    assert [p.label for p in counts.parts] == [
        "request-32x2-top1",
        "engine-32x2-top1",
        "windows-1024x1-top1-16-48",
        "windows-1024x1-top1-768-800",
    ]
    request, engine = counts.request(Case(32, 2)), counts.engine(Case(32, 2))
    assert 0 < engine.instructions < request.instructions and request.chunks == 32 * 2 * 2
    early, late = counts.windows(stream)
    assert early.chunks == late.chunks == 32
    assert late.per_chunk > 1.5 * early.per_chunk  # the copy of 768 tokens against 16
    assert got.hello["has_new_token_ids"] is True
    # Both runs forked from one child: the same memory image, the same count.
    assert again.request(Case(32, 2)).instructions == request.instructions
    assert len(list((tmp_path / "child").glob("callgrind.out.*.1"))) == 2  # one per run
