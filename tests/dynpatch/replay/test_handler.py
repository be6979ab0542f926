"""The child's view of dynamo, in process on a fake tree: where its modules came from,
the observed fatal exit, and the refusals."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dynpatch.replay import STANDIN_DIR, handler, scenarios
from dynpatch.replay.engine import ReplayEngine
from dynpatch.replay.paths import TREE_MODULES, inside
from dynpatch.replay.timing import chunk_history
from tests.fixtures.replay import fake_dynamo_tree


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Path]]:
    """Put a fake tree (options of ``fake_dynamo_tree``) and the stand-in on sys.path."""

    def put(**options: bool) -> Path:
        src = fake_dynamo_tree(tmp_path / "tree", **options)
        monkeypatch.syspath_prepend(str(STANDIN_DIR))
        monkeypatch.syspath_prepend(str(src))
        return src

    yield put
    for name in [m for m in sys.modules if m.split(".")[0] in ("dynamo", "tensorrt_llm")]:
        del sys.modules[name]


def test_replay_reports_where_each_module_came_from(tree: Callable[..., Path]) -> None:
    src = tree()
    replay = handler.Replay(STANDIN_DIR)
    assert all(inside(replay.modules[name], src) for name in TREE_MODULES)
    assert inside(replay.modules["tensorrt_llm"], STANDIN_DIR)
    assert "dynamo._core" in replay.modules
    assert replay.has_new_token_ids is False


def test_replay_sees_the_patched_signature(tree: Callable[..., Path]) -> None:
    tree(new_token_ids=True)
    assert handler.Replay(STANDIN_DIR).has_new_token_ids is True


def test_the_fatal_exit_is_observed_per_replay(tree: Callable[..., Path]) -> None:
    tree()
    replay = handler.Replay(STANDIN_DIR)
    hb = sys.modules["dynamo.trtllm.request_handlers.handler_base"]
    engine = ReplayEngine(scenarios.stream(1, 1), replay.errors)
    hb.exit_worker_on_fatal_error(engine, None)
    hb.exit_worker_on_fatal_error("real engine", object())
    assert replay.worker_exits == [
        {"engine": "engine double", "runtime": None},
        {"engine": "'real engine'", "runtime": "object"},
    ]


def test_prepare_gives_a_handler_streaming_the_script(tree: Callable[..., Path]) -> None:
    tree()
    script = scenarios.stream(4, 2)
    handler_, engine, request, context = handler.Replay(STANDIN_DIR).prepare(script, "r1")

    async def drain() -> list[dict]:
        return [chunk async for chunk in handler_.generate(request, context)]

    assert len(asyncio.run(drain())) == len(chunk_history(script))
    assert context.id == "r1" and engine.llm.calls


def test_a_handler_without_the_seam_is_refused(tree: Callable[..., Path]) -> None:
    tree(seam=False)
    with pytest.raises(handler.SetupError, match="cannot observe dynamo's fatal path"):
        handler.Replay(STANDIN_DIR)


def test_a_tensorrt_llm_that_is_not_the_stand_in_is_refused(
    tree: Callable[..., Path], tmp_path: Path
) -> None:
    tree()
    with pytest.raises(handler.SetupError, match="not the stand-in"):
        handler.Replay(tmp_path / "somewhere-else")


def test_hello_is_the_setup_report(tree: Callable[..., Path]) -> None:
    tree()
    replay = handler.Replay(STANDIN_DIR)
    report = handler.hello(replay, "patched")
    assert report["ok"] is True and report["tree"] == "patched"
    assert report["modules"] == replay.modules
    assert set(report["environment"]) >= {"python", "executable", "pid", "versions"}
    assert set(report["environment"]["versions"]) == {
        "torch",
        "transformers",
        "ai-dynamo-runtime",
        "pydantic",
    }
