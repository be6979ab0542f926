"""The fatal-exit seams, on handler_base modules of each shape built in process: which seam
is chosen, what each records, and that neither lets the process exit."""

from __future__ import annotations

import asyncio
import os
import types
from typing import Any

import pytest

from dynpatch.replay import fatal, scenarios
from dynpatch.replay.engine import ReplayEngine
from tests.fixtures.replay import ERRORS, FATAL

NEW, OLD = FATAL["exit_worker_on_fatal_error"], FATAL["os._exit"]


def module(source: str) -> types.ModuleType:
    hb = types.ModuleType("handler_base")
    exec(compile(source, "handler_base.py", "exec"), hb.__dict__)
    return hb


def engine() -> ReplayEngine:
    return ReplayEngine(scenarios.stream(1, 1), ERRORS)


class Runtime:
    def __init__(self) -> None:
        self.shutdowns = 0

    def shutdown(self) -> None:
        self.shutdowns += 1


def test_the_new_seam_is_replaced_and_records_what_was_asked() -> None:
    hb, seen = module(NEW), []
    assert fatal.observe(hb, seen.append) == fatal.NEW_SEAM
    asyncio.run(hb.HandlerBase(engine())._initiate_shutdown(RuntimeError("x")))
    hb.exit_worker_on_fatal_error("real engine", Runtime())
    assert seen == [
        {"seam": "exit_worker_on_fatal_error", "engine": "engine double", "runtime": None},
        {"seam": "exit_worker_on_fatal_error", "engine": "'real engine'", "runtime": "Runtime"},
    ]
    # Only that seam: an os._exit elsewhere in handler_base would still end the process.
    assert hb.os is os


def test_the_old_path_is_observed_after_its_cleanup_and_returns() -> None:
    hb, seen = module(OLD), []
    assert fatal.observe(hb, seen.append) == fatal.OLD_SEAM
    assert isinstance(hb.os, fatal.ObservedOs) and hb.os.REPLAY_DOUBLE
    runtime = Runtime()
    asyncio.run(hb.HandlerBase(engine(), runtime)._initiate_shutdown(RuntimeError("x")))
    assert runtime.shutdowns == 1  # dynamo's own steps before the exit still ran
    assert seen == [
        {
            "seam": "os._exit",
            "status": 1,
            "caller": "HandlerBase._initiate_shutdown",
            "engine": "engine double",
            "runtime": "Runtime",
        }
    ]


def test_the_os_proxy_is_the_real_os_but_for_an_exit_from_anywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hb, seen = module(OLD + "\n\ndef elsewhere():\n    os._exit(3)\n"), []
    fatal.observe(hb, seen.append)
    monkeypatch.setenv("DYNPATCH_TEST_FATAL", "seen")
    assert hb.os.getenv("DYNPATCH_TEST_FATAL") == "seen"
    assert hb.os.path is os.path and hb.os.getpid() == os.getpid()
    assert "observed by the dynpatch replay" in repr(hb.os)
    hb.elsewhere()
    assert seen == [
        {"seam": "os._exit", "status": 3, "caller": "elsewhere", "engine": None, "runtime": None}
    ]


@pytest.mark.parametrize(
    "source",
    [
        OLD.replace("os._exit(1)", "sys.exit(1)"),
        "x = 1\n",
        OLD + "\nimport types\nos = types.SimpleNamespace(_exit=lambda status: None)\n",
    ],
    ids=["sys.exit", "no HandlerBase", "an os that is not the real module"],
)
def test_neither_seam_replaces_nothing(source: str) -> None:
    hb = module(source)
    before: dict[str, Any] = dict(vars(hb))
    assert fatal.observe(hb, lambda event: None) is None
    assert vars(hb) == before
