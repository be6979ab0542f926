"""dynpatch.services.formatters: the formatter env (its pins: test_precommit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.services import formatters as tools
from dynpatch.workspace import Workspace
from tests.fixtures.synthetic import REAL_CACHE, REPO


def test_a_relative_cache_gives_an_absolute_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks run in temporary folders: a relative cache folder must still find the env (and
    its python stays the venv's link, not the interpreter it points to)."""
    absolute = tools.tools_python(REPO)
    monkeypatch.chdir(REAL_CACHE.parent)
    relative = tools.tools_python(Workspace(Path(".")))
    assert relative.is_absolute() and relative == absolute and relative.is_symlink()
