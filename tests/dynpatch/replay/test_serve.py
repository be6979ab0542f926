"""bench's pipe transport, in process on the fake replay: one reply per command."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from dynpatch.replay import serve
from dynpatch.replay.handler import SetupError
from tests.fixtures.replay import FakeReplay

CASE = {"tokens": 8, "choices": 1, "k": 1}


def answers(*commands: dict) -> list[dict]:
    reply = io.StringIO()
    lines = [json.dumps(c) + "\n" for c in commands]
    asyncio.run(serve.serve(FakeReplay(), lines, reply))
    return [json.loads(line) for line in reply.getvalue().splitlines()]


def test_time_and_alloc_commands_each_get_one_reply_until_quit() -> None:
    got = answers(
        {"cmd": "time", "case": CASE, "ops": 2},
        {"cmd": "alloc", "case": CASE, "samples": 4},
        {"cmd": "quit"},
        {"cmd": "time", "case": CASE, "ops": 1},  # after quit: never read
    )
    assert len(got) == 2
    assert len(got[0]["ops_ns"]) == 2 and got[0]["chunks"] == 8
    assert all(len(sample) == 2 for sample in got[1]["alloc"])


def test_the_end_of_the_commands_ends_the_worker() -> None:
    assert answers() == []


def test_an_unknown_command_is_a_setup_error() -> None:
    with pytest.raises(SetupError, match="unknown command 'fly'"):
        answers({"cmd": "fly", "case": CASE})


def test_cases_build_each_stream_once() -> None:
    cases = serve.Cases()
    first = cases.get(CASE)
    assert cases.get({"tokens": 8, "choices": 1}) is first  # k defaults to 1
    assert cases.get({"tokens": 8, "choices": 2}) is not first
