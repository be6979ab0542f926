"""dynamo's fatal path in a replay child, observed as an event of the stream instead of
ending the child: from 1.6.0 ``HandlerBase._initiate_shutdown`` calls the name
``exit_worker_on_fatal_error`` that handler_base binds (replaced by a recorder); before,
it calls ``os._exit(1)`` itself (handler_base gets an :class:`ObservedOs`). Only the seam
the release has is observed, so any other exit still ends the child.
"""

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
    if engine is None or isinstance(engine, ReplayEngine):
        named = None if engine is None else "engine double"
    else:
        named = repr(engine)
    return {"engine": named, "runtime": None if runtime is None else type(runtime).__name__}


class ObservedOs:
    """TEST DOUBLE of the ``os`` module inside handler_base: ``_exit`` is recorded and
    returns; everything else is the real ``os``."""

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


def _calls_os_exit(hb: ModuleType) -> bool:
    """handler_base's ``_initiate_shutdown`` calls ``os._exit`` through the module's ``os``."""
    base = getattr(hb, "HandlerBase", None)
    shutdown = getattr(base, "_initiate_shutdown", None)
    code = getattr(shutdown, "__code__", None)
    return (
        getattr(hb, "os", None) is os and code is not None and {"os", "_exit"} <= set(code.co_names)
    )


def observe(hb: ModuleType, record: Record) -> str | None:
    """Replace the fatal-exit seam ``hb`` (handler_base) has with ``record``; the seam's
    name, or None when handler_base has neither (upstream drift: nothing is replaced)."""
    if hasattr(hb, NEW_SEAM):

        def exit_worker(engine: Any, runtime: Any, shutdown_timeout: float | None = None) -> None:
            record({"seam": NEW_SEAM, **describe(engine, runtime)})

        setattr(hb, NEW_SEAM, exit_worker)
        return NEW_SEAM
    if _calls_os_exit(hb):
        hb.os = ObservedOs(record)  # type: ignore[attr-defined]
        return OLD_SEAM
    return None
