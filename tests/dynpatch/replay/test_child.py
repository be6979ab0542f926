"""The replay child, in process on the fake replay: what a stream's records are, and how
the result file is written."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from dynpatch.replay import child, scenarios, wire
from dynpatch.replay.handler import EXIT_CODE_SETUP, SetupError
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


def test_main_writes_the_result_or_a_refusal_with_its_own_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert child.main([]) == 2 and child.main(["a", "b", "c"]) == 2
    assert "usage: python -m dynpatch.replay.child JOB.json RESULT.json" in capsys.readouterr().err
    monkeypatch.setattr(child, "Replay", lambda standin: FakeReplay())
    monkeypatch.setattr(child, "hello", lambda replay, tree: {"ok": True, "tree": tree})
    spec, result = tmp_path / "job.json", tmp_path / "result.json"
    spec.write_text(json.dumps({"tree": "baseline", "standin": "x", "scenarios": []}))
    assert child.main([str(spec), str(result)]) == 0
    assert json.loads(result.read_text()) == {"ok": True, "tree": "baseline", "scenarios": []}

    def refuse(standin: str) -> FakeReplay:
        raise SetupError("not here")

    monkeypatch.setattr(child, "Replay", refuse)
    assert child.main([str(spec), str(result)]) == EXIT_CODE_SETUP
    assert json.loads(result.read_text()) == {"ok": False, "error": "not here"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.json", "result.json"]
