"""The bench's measurements, in process on the fake replay (counting is a no-op off
valgrind): counted parts, forked runs, allocation samples, the A/B's turns."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import threading
from pathlib import Path

import pytest

from dynpatch.replay import child, counted, scenarios
from dynpatch.replay.handler import EXIT_CODE_SETUP, SetupError
from dynpatch.replay.script import chunk_history
from tests.fixtures.replay import ERRORS, FakeReplay


@dataclasses.dataclass
class CountingReplay(FakeReplay):
    errors: object = ERRORS  # the engine double alone is built from the replay's types


CASE = {"tokens": 64, "choices": 2}


def test_a_request_and_the_engine_alone_are_each_counted_once_after_the_warm_up() -> None:
    replay = CountingReplay()
    part = asyncio.run(counted.count_request(replay, CASE, "request"))
    assert part == {"label": "request-64x2", "what": "request", "case": CASE, "chunks": 256}
    assert len(replay.prepared) == 1 + counted.WARMUP  # a fresh handler each
    engine = asyncio.run(counted.count_request(replay, CASE, "engine"))
    assert (engine["label"], engine["chunks"]) == ("engine-64x2", 64 * 2 * 2)


def test_windows_cover_the_chunks_whose_history_lies_in_them() -> None:
    history = chunk_history(scenarios.stream(64, 2))
    # Two interleaved choices: result 2(h - 1) grows choice 0 to h; each result is 2 chunks.
    assert counted.chunk_range(history, 8, 16) == (2 * 2 * (8 - 1), 2 * 2 * (16 - 1))
    parts = asyncio.run(counted.count_windows(CountingReplay(), CASE, [(40, 48), (8, 16)]))
    assert [p["label"] for p in parts] == ["windows-64x2-8-16", "windows-64x2-40-48"]
    assert [p["chunks"] for p in parts] == [32, 32] and parts[0]["history"] == [8, 16]
    for windows in ([(0, 8)], [(60, 80)], [(8, 8)]):
        with pytest.raises(ValueError, match="is not inside a 256-chunk stream"):
            asyncio.run(counted.count_windows(CountingReplay(), CASE, windows))
    with pytest.raises(ValueError, match="overlap"):
        asyncio.run(counted.count_windows(CountingReplay(), CASE, [(8, 16), (12, 20)]))


def test_each_run_is_a_forked_copy_counting_its_own_measurements_in_order(
    tmp_path: Path,
) -> None:
    windows = {"what": "windows", "case": CASE, "windows": [[8, 16]]}
    runs = [[windows, {"what": "request", "case": CASE}], [{"what": "engine", "case": CASE}]]
    one, two = counted.forked_runs(CountingReplay(), runs, tmp_path)
    assert [p["what"] for p in one["parts"]] == ["windows", "request"]
    assert [p["what"] for p in two["parts"]] == ["engine"]
    assert len({one["pid"], two["pid"], os.getpid()}) == 3  # two copies of this process
    with pytest.raises(SetupError, match="unknown measurement 'sweep'"):
        asyncio.run(counted.run_counts(CountingReplay(), [{"what": "sweep", "case": CASE}]))


def test_off_valgrind_a_counted_child_refuses_with_a_result_that_says_so(tmp_path: Path) -> None:
    job, result = tmp_path / "job.json", tmp_path / "result.json"
    job.write_text(json.dumps({"tree": "baseline", "standin": str(tmp_path), "counted": [[]]}))
    assert child.main([str(job), str(result)]) == EXIT_CODE_SETUP
    refused = {"ok": False, "error": "not running under valgrind: the counts would all be missing"}
    assert json.loads(result.read_text()) == refused
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.json", "result.json"]


def test_allocation_is_sampled_on_chunks_spread_over_the_stream_never_the_first() -> None:
    script = scenarios.stream(64, 1)
    peaks = asyncio.run(counted.alloc_peaks(FakeReplay(), script, 8))
    history = chunk_history(script)
    assert [h for h, _ in peaks] == [2, 9, 16, 23, 30, 37, 44, 51, 58]  # every 7th chunk from 1
    assert all(peak > 0 for _, peak in peaks) and history[-1] == 64


def test_a_stream_that_is_not_the_expected_length_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script = scenarios.stream(4, 1)
    monkeypatch.setattr("dynpatch.replay.script.chunk_history", lambda s: [1, 2, 3, 4, 4])
    with pytest.raises(RuntimeError, match="4 chunks, expected 5"):
        asyncio.run(counted._request(FakeReplay(), script, counted.stopwatch([])))


def test_the_a_b_children_take_turns_through_their_fifos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ops: list[str] = []

    async def request(replay: FakeReplay, script: object, around: object = None) -> None:
        ops.append(threading.current_thread().name)

    monkeypatch.setattr(counted, "_request", request)
    fifos = [tmp_path / "a", tmp_path / "b"]
    for fifo in fifos:
        os.mkfifo(fifo)

    def child(i: int) -> None:
        ab = {"case": {"tokens": 1, "choices": 1}, "warmup": 0, "pairs": 4}
        ab |= {"first": i == 0, "baton": [str(fifos[i]), str(fifos[1 - i])]}
        asyncio.run(counted.take_turns(FakeReplay(), ab))

    threads = [threading.Thread(target=child, args=(i,), name="AB"[i]) for i in (1, 0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert "".join(ops) == "ABBAABBA"
