"""dynpatch.apply.tools: the formatter env and its pins."""

from __future__ import annotations

import pytest

from dynpatch.apply import tools as upstream
from tests.fixtures.synthetic import REAL_VENDOR


def test_the_env_holds_dynamos_pre_commit_pins() -> None:
    assert upstream.TOOLS == (
        "black==23.1.0",
        "isort==5.12.0",
        "flake8==7.3.0",
        "ruff==0.5.2",
        "codespell==2.2.4",
    )


def test_a_relative_vendor_gives_an_absolute_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks run in temporary folders: a relative --vendor must still find the env (and
    its python stays the venv's link, not the interpreter it points to)."""
    absolute = upstream.tools_python(REAL_VENDOR)
    monkeypatch.chdir(REAL_VENDOR.parent)
    relative = upstream.tools_python(REAL_VENDOR.relative_to(REAL_VENDOR.parent))
    assert relative.is_absolute() and relative == absolute and relative.is_symlink()
