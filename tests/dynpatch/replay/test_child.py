"""The replay child, in process on the fake replay: what a stream's records are, and how
the result file is written."""

from __future__ import annotations

import asyncio
import json

import pytest

from dynpatch.replay import child, scenarios, wire
from dynpatch.replay.script import Delta, ReplayStep, Script, to_json
from tests.fixtures.replay import FakeReplay


def kinds(records: list[str]) -> list[str]:
    return [json.loads(r)["kind"] for r in records]


def test_records_are_submissions_then_chunks_then_events_then_what_was_raised() -> None:
    script = scenarios.stream(3, 1)
    records = asyncio.run(child.replay_records(FakeReplay(), script, 10))
    assert kinds(records) == ["submit", "chunk", "chunk", "chunk"]
    tokens = [d.tokens[0] for s in script.steps for d in s.deltas]
    assert json.loads(records[-1])["value"]["token_ids"] == tokens
    steps = (ReplayStep((Delta(0, (5,)),)), ReplayStep(raise_kind="request", message="x"))
    records = asyncio.run(child.replay_records(FakeReplay(), Script("boom", steps), 10))
    assert kinds(records) == ["submit", "chunk", "raised"]
    assert json.loads(records[-1])["value"] == {"type": "RequestError", "message": "x"}


def test_worker_exits_of_the_request_become_events_and_are_cleared_first() -> None:
    replay = FakeReplay(worker_exits=[{"engine": "left over from another request"}])
    script = Script("fatal", steps=(ReplayStep((Delta(0, (5,)),)), ReplayStep(no_outputs=True)))
    records = asyncio.run(child.replay_records(replay, script, 10))
    assert kinds(records) == ["submit", "chunk", "worker_exit"]
    assert records[-1] == wire.record("worker_exit", {"engine": "engine double", "runtime": None})


def test_run_verify_replays_named_scenarios_then_scripts_in_order() -> None:
    extra = scenarios.stream(2, 1)
    jobspec = {"scenarios": ["1-choice-one-token-top1"], "scripts": [to_json(extra)]}
    replay = FakeReplay()
    out = asyncio.run(child.run_verify(replay, json.loads(json.dumps(jobspec))))
    assert [o["name"] for o in out] == ["1-choice-one-token-top1", extra.name]
    assert replay.prepared == ["verify-1-choice-one-token-top1", f"verify-{extra.name}"]


def test_a_child_asked_wrongly_says_how_to_ask(capsys: pytest.CaptureFixture[str]) -> None:
    assert child.main([]) == 2 and child.main(["a", "b", "c"]) == 2
    assert "usage: python -m dynpatch.replay.child JOB.json RESULT.json" in capsys.readouterr().err
