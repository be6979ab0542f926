"""dynamo's fatal path observed as an event of the stream: from 1.6.0 handler_base's
``exit_worker_on_fatal_error``, before its ``os._exit`` (:class:`ObservedOs`). Only the seam the
release has is observed: any other exit still ends the child."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from dynpatch.replay.engine import ReplayEngine

NEW_SEAM = "exit_worker_on_fatal_error"
OLD_SEAM = "os._exit"

Record = Callable[[dict[str, Any]], None]


def describe(engine: Any, runtime: Any) -> dict[str, Any]:
    """What the fatal path asked to shut down, as the event records it."""
    named = None if engine is None else repr(engine)
    if isinstance(engine, ReplayEngine):
        named = "engine double"
    return {"engine": named, "runtime": None if runtime is None else type(runtime).__name__}


class ObservedOs:
    """TEST DOUBLE of handler_base's ``os``: ``_exit`` is recorded and returns."""

    REPLAY_DOUBLE = True

    def __init__(self, record: Record):
        self._record = record

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def __repr__(self) -> str:
        return "<os of dynamo's handler_base, _exit observed by the dynpatch replay>"

    def _exit(self, status: int) -> None:
        caller = sys._getframe(1)
        handler = caller.f_locals.get("self")
        code = caller.f_code
        self._record(
            {
                "seam": OLD_SEAM,
                "status": status,
                "caller": getattr(code, "co_qualname", code.co_name),
                **describe(getattr(handler, "engine", None), getattr(handler, "runtime", None)),
            }
        )


def observe(hb: ModuleType, record: Record) -> str | None:
    """Replace handler_base's fatal-exit seam by ``record``: its name (None: there is none)."""
    if hasattr(hb, NEW_SEAM):

        def exit_worker(engine: Any, runtime: Any, shutdown_timeout: float | None = None) -> None:
            record({"seam": NEW_SEAM, **describe(engine, runtime)})

        setattr(hb, NEW_SEAM, exit_worker)
        return NEW_SEAM
    # Before 1.6.0: HandlerBase._initiate_shutdown calls os._exit through the module's os.
    shutdown = getattr(getattr(hb, "HandlerBase", None), "_initiate_shutdown", None)
    code = getattr(shutdown, "__code__", None)
    if getattr(hb, "os", None) is os and code is not None and {"os", "_exit"} <= set(code.co_names):
        hb.os = ObservedOs(record)  # type: ignore[attr-defined]
        return OLD_SEAM
    return None
