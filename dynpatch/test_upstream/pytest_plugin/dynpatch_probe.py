"""pytest plugin loaded into dynamo's test runs with ``-p dynpatch_probe``.

It writes one JSON record to the path in ``$DYNPATCH_PROBE_OUT``: every test's outcome
keyed by its file and name, every collection error by file, and the file each
imported ``dynamo`` module was loaded from, so the caller can show which copy of
dynamo a run really tested. It imports nothing from the toolkit: it runs under any
interpreter that has pytest (a nox venv, or the TRT-LLM container's own Python).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest

_paths: dict[str, str] = {}  # nodeid -> absolute file path
_tests: dict[str, dict[str, str]] = {}  # "path::name" -> {"outcome", "message"}
_collect_errors: list[dict[str, str]] = []


def _key(nodeid: str) -> str:
    name = nodeid.split("::", 1)[1] if "::" in nodeid else nodeid
    return f"{_paths.get(nodeid, '?')}::{name}"


def _message(report: Any) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)
    text = str(report.longrepr or "").strip().splitlines()
    return text[-1] if text else ""


def pytest_itemcollected(item: pytest.Item) -> None:
    _paths[item.nodeid] = str(item.path)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        path = str(getattr(collector, "path", "") or collector.nodeid)
        _collect_errors.append({"path": path, "message": _message(report)})


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    entry = _tests.setdefault(_key(report.nodeid), {"outcome": "", "message": ""})
    xfail = hasattr(report, "wasxfail")
    if report.when == "setup":
        if report.failed:
            entry.update(outcome="error", message=_message(report))
        elif report.skipped:
            entry.update(outcome="skipped", message=_message(report))
    elif report.when == "call":
        if report.failed:
            entry.update(outcome="failed", message=_message(report))
        elif report.skipped:  # skipped inside the test, or an expected failure
            entry.update(outcome="skipped", message="xfailed" if xfail else _message(report))
        else:
            entry.update(outcome="passed", message="xpassed" if xfail else "")
    elif report.failed and entry["outcome"] in ("passed", "skipped", ""):
        entry.update(outcome="error", message=_message(report))  # teardown failed


def _modules() -> dict[str, str | None]:
    """Every imported dynamo module and the file it came from (None: no file)."""
    found = {}
    for name, module in list(sys.modules.items()):
        if name == "dynamo" or name.startswith("dynamo."):
            found[name] = getattr(module, "__file__", None)
    return found


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    out = os.environ.get("DYNPATCH_PROBE_OUT")
    if not out:
        return
    record = {
        "python": sys.executable,
        "exitstatus": int(exitstatus),
        "tests": _tests,
        "collect_errors": _collect_errors,
        "modules": _modules(),
    }
    tmp = f"{out}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1, sort_keys=True)
    os.replace(tmp, out)
