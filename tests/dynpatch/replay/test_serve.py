"""The bench worker, in process on the fake replay: one reply per command, and what a
``time`` and an ``alloc`` op measure."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from dynpatch.replay import scenarios, serve
from dynpatch.replay.handler import SetupError
from dynpatch.replay.script import chunk_history
from tests.fixtures.replay import FakeReplay

CASE = {"tokens": 8, "choices": 2, "k": 1}


def answers(replay: FakeReplay, *commands: dict) -> list[dict]:
    reply = io.StringIO()
    lines = [json.dumps(c) + "\n" for c in commands]
    asyncio.run(serve.serve(replay, lines, reply))
    return [json.loads(line) for line in reply.getvalue().splitlines()]


def test_time_and_alloc_each_get_one_reply_until_quit() -> None:
    replay = FakeReplay()
    timed, alloc = answers(
        replay,
        {"cmd": "time", "case": CASE, "ops": 3},
        {"cmd": "alloc", "case": {"tokens": 64, "choices": 1}, "samples": 8},
        {"cmd": "quit"},
        {"cmd": "time", "case": CASE, "ops": 1},  # after quit: never read
    )
    # 16 results (one choice grows in each), each reporting both choices.
    assert timed["chunks"] == len(chunk_history(scenarios.stream(8, 2))) == 32
    assert len(timed["ops_ns"]) == 3 and all(ns > 0 for ns in timed["ops_ns"])
    assert replay.prepared == ["bench"] * 3 + ["alloc"]  # a fresh handler per op
    history = chunk_history(scenarios.stream(64, 1))
    assert 8 <= len(alloc["alloc"]) <= 9
    assert all(h in history[1:] and peak >= 0 for h, peak in alloc["alloc"])
    assert serve.case_script(8, 2) is serve.case_script(8, 2)  # built once, never timed
    assert answers(FakeReplay()) == []  # the end of the commands ends the worker
    with pytest.raises(SetupError, match="unknown command 'fly'"):
        answers(FakeReplay(), {"cmd": "fly", "case": CASE})


def test_a_stream_that_is_not_the_expected_length_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script = scenarios.stream(4, 1)
    expected = [*chunk_history(script), 4]
    monkeypatch.setattr("dynpatch.replay.script.chunk_history", lambda s: expected)
    with pytest.raises(RuntimeError, match="4 chunks, expected 5"):
        asyncio.run(serve.time_case(FakeReplay(), script, 1))
    monkeypatch.setattr(serve, "chunk_history", lambda s: expected)
    with pytest.raises(RuntimeError, match="4 chunks, expected 5"):
        asyncio.run(serve.alloc_op(FakeReplay(), script, 2))
