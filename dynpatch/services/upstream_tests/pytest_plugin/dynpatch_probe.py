"""pytest plugin (``-p dynpatch_probe``): writes to ``$DYNPATCH_PROBE_OUT`` each ``dynamo``
module's file and each collection error; nothing from the toolkit (any Python with pytest)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Generator
from typing import Any

import pytest

_collect_errors: dict[str, str] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    report = (yield).get_result()
    if report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        text = str(crash.message if crash else report.longrepr or "").strip().splitlines()
        path = str(getattr(collector, "path", "") or collector.nodeid)
        _collect_errors[path] = text[-1].removeprefix("E").strip() if text else ""


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not (out := os.environ.get("DYNPATCH_PROBE_OUT")):
        return
    modules = {
        name: getattr(module, "__file__", None)
        for name, module in list(sys.modules.items())
        if name == "dynamo" or name.startswith("dynamo.")
    }
    with open(f"{out}.tmp", "w", encoding="utf-8") as fh:
        json.dump({"modules": modules, "collect_errors": _collect_errors}, fh, indent=1)
    os.replace(f"{out}.tmp", out)
