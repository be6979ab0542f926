"""The fatal-exit seams, on handler_base modules of each shape built in process: which seam
is chosen, what each records, and that neither lets the process exit."""

from __future__ import annotations

import asyncio
import os
import types

import pytest

from dynpatch.replay import fatal, scenarios
from dynpatch.replay.engine import ReplayEngine
from tests.fixtures.replay import ERRORS, FATAL

NEW, OLD = FATAL["exit_worker_on_fatal_error"], FATAL["os._exit"]


def module(source: str) -> types.ModuleType:
    hb = types.ModuleType("handler_base")
    exec(compile(source, "handler_base.py", "exec"), hb.__dict__)
    return hb


class Runtime:
    shutdowns = 0

    def shutdown(self) -> None:
        self.shutdowns += 1


def shut_down(hb: types.ModuleType, runtime: Runtime | None = None) -> None:
    engine = ReplayEngine(scenarios.stream(1, 1), ERRORS)
    asyncio.run(hb.HandlerBase(engine, runtime)._initiate_shutdown(RuntimeError("x")))


def test_the_new_seam_is_replaced_and_records_what_was_asked() -> None:
    hb, seen = module(NEW), []
    assert fatal.observe(hb, seen.append) == fatal.NEW_SEAM
    shut_down(hb)
    hb.exit_worker_on_fatal_error("real engine", Runtime())
    assert seen == [
        {"seam": "exit_worker_on_fatal_error", "engine": "engine double", "runtime": None},
        {"seam": "exit_worker_on_fatal_error", "engine": "'real engine'", "runtime": "Runtime"},
    ]
    assert hb.os is os  # only that seam: an os._exit elsewhere would still end the process


def test_the_old_path_is_observed_after_its_cleanup_and_the_proxy_is_the_real_os_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hb, seen, runtime = module(OLD + "\n\ndef elsewhere():\n    os._exit(3)\n"), [], Runtime()
    assert fatal.observe(hb, seen.append) == fatal.OLD_SEAM
    shut_down(hb, runtime)
    assert runtime.shutdowns == 1  # dynamo's own steps before the exit still ran
    hb.elsewhere()
    assert seen == [
        {
            "seam": "os._exit",
            "status": 1,
            "caller": "HandlerBase._initiate_shutdown",
            "engine": "engine double",
            "runtime": "Runtime",
        },
        {"seam": "os._exit", "status": 3, "caller": "elsewhere", "engine": None, "runtime": None},
    ]
    monkeypatch.setenv("DYNPATCH_TEST_FATAL", "seen")
    assert hb.os.getenv("DYNPATCH_TEST_FATAL") == "seen" and hb.os.path is os.path
    assert hb.os.REPLAY_DOUBLE and "observed by the dynpatch replay" in repr(hb.os)


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
    before = dict(vars(hb))
    assert fatal.observe(hb, lambda event: None) is None
    assert vars(hb) == before
