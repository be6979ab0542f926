"""dynpatch.apply.tools: the formatter env (its pins: test_precommit.py)."""

from __future__ import annotations

import pytest

from dynpatch.apply import tools
from tests.fixtures.synthetic import REAL_VENDOR


def test_a_relative_vendor_gives_an_absolute_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks run in temporary folders: a relative --vendor must still find the env (and
    its python stays the venv's link, not the interpreter it points to)."""
    absolute = tools.tools_python(REAL_VENDOR)
    monkeypatch.chdir(REAL_VENDOR.parent)
    relative = tools.tools_python(REAL_VENDOR.relative_to(REAL_VENDOR.parent))
    assert relative.is_absolute() and relative == absolute and relative.is_symlink()
