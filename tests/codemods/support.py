"""Small helpers shared by the codemod tests."""

from __future__ import annotations

import libcst
from libcst.codemod import Codemod

from codemods.outcome import Status
from codemods.series import run_codemod


def outcome_of(codemod: type[Codemod], source: str) -> tuple[Status, str]:
    status, detail, tree = run_codemod(codemod, "snippet.py", libcst.parse_module(source))
    if status is not Status.APPLIED:
        assert tree.code == source, "a refused codemod must return its input untouched"
    return status, detail
