"""The counted child, in process on the fake replay (counting is a no-op off valgrind)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from pathlib import Path

import pytest

from dynpatch.replay import counted, scenarios
from dynpatch.replay.handler import EXIT_CODE_SETUP, SetupError
from dynpatch.replay.script import chunk_history
from tests.fixtures.replay import ERRORS, FakeReplay


@dataclasses.dataclass
class CountingReplay(FakeReplay):
    errors: object = ERRORS  # the engine double alone is built from the replay's types


CASE = {"tokens": 64, "choices": 2, "k": 1}


def test_requests_and_the_engine_alone_are_counted_after_the_warm_up() -> None:
    replay = CountingReplay()
    part = asyncio.run(counted.count_requests(replay, CASE, ops=2, warmup=1))
    assert part == {
        "label": "request-64x2-top1",
        "what": "request",
        "case": CASE,
        "requests": 2,
        "chunks": 2 * 64 * 2 * 2,
    }
    assert replay.prepared == ["warm-up", "count-0", "count-1"]  # built before counting
    engine = asyncio.run(counted.count_engine(replay, CASE, ops=1, warmup=1))
    assert (engine["label"], engine["chunks"]) == ("engine-64x2-top1", 64 * 2 * 2)


def test_windows_cover_the_chunks_whose_history_lies_in_them() -> None:
    history = chunk_history(scenarios.stream(64, 2))
    # Two interleaved choices: result 2(h - 1) grows choice 0 to h; each result is 2 chunks.
    assert counted.chunk_range(history, 8, 16) == (2 * 2 * (8 - 1), 2 * 2 * (16 - 1))
    parts = asyncio.run(counted.count_windows(CountingReplay(), CASE, [(40, 48), (8, 16)], 0))
    assert [p["label"] for p in parts] == ["windows-64x2-top1-8-16", "windows-64x2-top1-40-48"]
    assert [p["chunks"] for p in parts] == [32, 32] and parts[0]["history"] == [8, 16]
    assert all(
        history[a] >= lo and history[b - 1] < hi
        for (a, b), (lo, hi) in zip(
            [p["chunk_range"] for p in parts], [(8, 16), (40, 48)], strict=True
        )
    )


def test_windows_outside_the_stream_or_overlapping_are_refused() -> None:
    for windows in ([(0, 8)], [(60, 80)], [(8, 8)]):
        with pytest.raises(ValueError, match="is not inside a 256-chunk stream"):
            asyncio.run(counted.count_windows(CountingReplay(), CASE, windows, 0))
    with pytest.raises(ValueError, match="overlap"):
        asyncio.run(counted.count_windows(CountingReplay(), CASE, [(8, 16), (12, 20)], 0))


def test_a_job_runs_its_measurements_in_order_and_refuses_an_unknown_one() -> None:
    job = {
        "warmup": 0,
        "measure": [
            {"what": "windows", "case": CASE, "windows": [[8, 16]]},
            {"what": "request", "case": CASE},
        ],
    }
    parts = asyncio.run(counted.run_counts(CountingReplay(), job))
    assert [p["what"] for p in parts] == ["windows", "request"]
    with pytest.raises(SetupError, match="unknown measurement 'sweep'"):
        asyncio.run(
            counted.run_counts(CountingReplay(), {"measure": [{"what": "sweep", "case": CASE}]})
        )


def test_each_run_is_a_forked_copy_that_reports_the_same_parts(tmp_path: Path) -> None:
    job = {"warmup": 0, "runs": 2, "measure": [{"what": "request", "case": CASE}]}
    one, two = counted.forked_runs(CountingReplay(), job, tmp_path)
    assert one["parts"] == two["parts"] and one["parts"][0]["what"] == "request"
    assert len({one["pid"], two["pid"], os.getpid()}) == 3  # two copies of this process


def test_off_valgrind_the_child_refuses_with_a_result_that_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert counted.main([]) == 2 and "usage:" in capsys.readouterr().err
    job, result = tmp_path / "job.json", tmp_path / "result.json"
    job.write_text(json.dumps({"tree": "baseline", "standin": str(tmp_path), "measure": []}))
    assert counted.main([str(job), str(result)]) == EXIT_CODE_SETUP
    assert json.loads(result.read_text()) == {
        "ok": False,
        "error": "not running under valgrind: the counts would all be missing",
    }
