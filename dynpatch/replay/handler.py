"""Dynamo's TRT-LLM handler in a replay child, its fatal exit observed (stdlib + replay package)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import inspect
import os
import platform
import sys
import traceback
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any, NoReturn

from dynpatch.replay import fatal, wire
from dynpatch.replay.engine import Errors, ReplayEngine
from dynpatch.replay.script import Script, request_for

EXIT_CODE_SETUP = 3  # the child could not set up the replay (message in its answer)
TREE_MODULES = (  # whose origin must be the tree under test
    "dynamo.common.backend.logprobs",
    "dynamo.trtllm.request_handlers.handler_base",
    "dynamo.trtllm.request_handlers.aggregated_handler",
)
DISTS = ("torch", "transformers", "ai-dynamo-runtime", "pydantic")  # versions reported


def inside(path: str | Path | None, root: Path) -> bool:
    """``path`` lies under ``root`` once both are resolved (False for no path)."""
    return bool(path) and Path(str(path)).resolve().is_relative_to(root.resolve())


@contextlib.contextmanager
def quiet_gc() -> Iterator[None]:
    """No collection inside the block: collect first, then off until it ends."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def end_copy(run: Callable[..., Any], *args: Any) -> NoReturn:
    """In a forked copy: ``run(*args)``, then exit 0 (1, its traceback printed, if it raised)."""
    status = 1
    try:
        run(*args)
        status = 0
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


class SetupError(Exception):
    """The replay cannot run here; the message says why (sent to the parent)."""


class Replay:
    """Dynamo imported from one tree, its fatal-exit seam observed, handlers on demand."""

    def __init__(self, standin: Path):
        self.worker_exits: list[dict[str, Any]] = []  # asked for during the current request
        logprobs, hb, agg = (importlib.import_module(name) for name in TREE_MODULES)
        self.modules = {m.__name__: str(m.__file__) for m in (logprobs, hb, agg)}
        trt = importlib.import_module("tensorrt_llm")
        self.modules["tensorrt_llm"] = str(trt.__file__)
        if not getattr(trt, "STANDIN", False) or not inside(trt.__file__, standin):
            raise SetupError(f"tensorrt_llm came from {trt.__file__}, not the stand-in {standin}")
        self.modules["dynamo._core"] = str(importlib.import_module("dynamo._core").__file__)
        self.has_new_token_ids = (
            "new_token_ids" in inspect.signature(logprobs.extract_from_completion_output).parameters
        )
        self.fatal_seam = fatal.observe(hb, self.worker_exits.append)
        if self.fatal_seam is None:
            raise SetupError(
                f"handler_base neither binds {fatal.NEW_SEAM} (1.6.0 on) nor calls "
                f"{fatal.OLD_SEAM} from HandlerBase._initiate_shutdown (before 1.6.0): "
                "the replay cannot observe dynamo's fatal path (upstream drift)"
            )
        self._hb, self._agg = hb, agg

        from dynamo._core import Context
        from dynamo.llm.exceptions import EngineShutdown
        from dynamo.trtllm.constants import DisaggregationMode
        from tensorrt_llm.executor.result import Logprob
        from tensorrt_llm.executor.utils import RequestError
        from tensorrt_llm.sampling_params import SamplingParams

        self.errors = Errors(RequestError, EngineShutdown, Logprob)
        self._context = Context
        self._mode = DisaggregationMode.AGGREGATED
        self._sampling_params = SamplingParams

    def prepare(
        self, script: Script, request_id: str, ids: type[list[int]] = list
    ) -> tuple[Any, ReplayEngine, Any, Any]:
        """A fresh handler, engine double (``token_ids`` as ``ids``), request and context."""
        engine = ReplayEngine(script, self.errors, ids)
        config = self._hb.RequestHandlerConfig(
            engine=engine,
            default_sampling_params=self._sampling_params(),
            publisher=None,
            disaggregation_mode=self._mode,
        )
        handler = self._agg.AggregatedHandler(config)
        return handler, engine, request_for(script), self._context(id=request_id)


def hello(replay: Replay, tree: str | None) -> dict[str, Any]:
    """The child's setup report: which tree, its modules' origins, its environment."""
    versions: dict[str, str | None] = dict.fromkeys(DISTS)
    for dist in DISTS:
        with contextlib.suppress(Exception):
            versions[dist] = version(dist)
    return {
        "ok": True,
        "tree": tree,
        "modules": replay.modules,
        "has_new_token_ids": replay.has_new_token_ids,
        "fatal_seam": replay.fatal_seam,
        "environment": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
            "platform": platform.platform(),
            "pid": os.getpid(),
            "versions": versions,
        },
    }


async def replay_records(
    replay: Replay,
    script: Script,
    timeout: float,
    ids: type[list[int]] = list,
    seen: Callable[[Any, ReplayEngine], None] | None = None,
) -> list[str]:
    """One request's observed stream, canonical; ``seen`` is told of each chunk as it comes."""
    handler, engine, request, context = replay.prepare(script, f"verify-{script.name}", ids)
    replay.worker_exits.clear()
    chunks: list[str] = []
    tail: list[str] = []

    async def drain() -> None:
        async for chunk in handler.generate(request, context):
            chunks.append(wire.record("chunk", chunk))
            if seen is not None:
                seen(chunk, engine)

    try:
        await asyncio.wait_for(drain(), timeout)
    except TimeoutError:
        raise
    except Exception as exc:  # an exception leaving the handler is an observation
        tail.append(wire.record("raised", {"type": type(exc).__name__, "message": str(exc)}))
    submits = [wire.record("submit", call) for call in engine.llm.calls]
    events = [wire.record("worker_exit", e) for e in replay.worker_exits]
    submitted = engine.llm.submitted
    if submitted is not None and submitted.aborted:  # dynamo cancelled the engine request
        events.append(wire.record("engine_abort", {"calls": submitted.aborted}))
    return [*submits, *chunks, *events, *tail]
