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
    assert replay.fatal_seam == "exit_worker_on_fatal_error"
    hb = sys.modules["dynamo.trtllm.request_handlers.handler_base"]
    engine = ReplayEngine(scenarios.stream(1, 1), replay.errors)
    hb.exit_worker_on_fatal_error(engine, None)
    hb.exit_worker_on_fatal_error("real engine", object())
    assert replay.worker_exits == [
        {"seam": "exit_worker_on_fatal_error", "engine": "engine double", "runtime": None},
        {"seam": "exit_worker_on_fatal_error", "engine": "'real engine'", "runtime": "object"},
    ]


def fatal_stream(replay: handler.Replay) -> list[dict]:
    """The chunks of a request whose engine yields a result with no outputs mid-stream
    (the fake handler's fatal path)."""
    handler_, _engine, request, context = replay.prepare(
        scenarios.named(["no-outputs-while-running"])[0], "r-fatal"
    )

    async def drain() -> list[dict]:
        return [chunk async for chunk in handler_.generate(request, context)]

    return asyncio.run(drain())


@pytest.mark.parametrize("fatal", ["exit_worker_on_fatal_error", "os._exit"])
def test_either_fatal_path_is_one_observed_event_and_the_stream_goes_on(
    tree: Callable[..., Path], fatal: str
) -> None:
    tree(fatal=fatal)
    replay = handler.Replay(STANDIN_DIR)
    assert replay.fatal_seam == fatal and handler.hello(replay, None)["fatal_seam"] == fatal
    chunks = fatal_stream(replay)  # this process is still here: no real exit happened
    assert len(chunks) == 6  # 7 results, one of them without outputs
    assert len(replay.worker_exits) == 1
    event = replay.worker_exits[0]
    assert (event["seam"], event["engine"], event["runtime"]) == (fatal, "engine double", None)
    if fatal == "os._exit":
        assert (event["status"], event["caller"]) == (1, "HandlerBase._initiate_shutdown")


def test_prepare_gives_a_handler_streaming_the_script(tree: Callable[..., Path]) -> None:
    tree()
    script = scenarios.stream(4, 2)
    handler_, engine, request, context = handler.Replay(STANDIN_DIR).prepare(script, "r1")

    async def drain() -> list[dict]:
        return [chunk async for chunk in handler_.generate(request, context)]

    assert len(asyncio.run(drain())) == len(chunk_history(script))
    assert context.id == "r1" and engine.llm.calls


def test_a_handler_without_either_seam_is_refused(tree: Callable[..., Path]) -> None:
    tree(fatal="none")
    with pytest.raises(handler.SetupError, match="cannot observe dynamo's fatal path") as info:
        handler.Replay(STANDIN_DIR)
    assert "exit_worker_on_fatal_error" in str(info.value) and "os._exit" in str(info.value)


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
