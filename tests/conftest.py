"""Fixtures only; what they build lives in tests/fixtures/."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dynpatch.pin import load_pin
from dynpatch.workspace import Workspace
from tests.fixtures.synthetic import REPO, SYNTHETIC_FILES, SyntheticRelease, build_wheel, write_pin


@pytest.fixture
def synthetic_release(tmp_path: Path) -> Callable[..., SyntheticRelease]:
    """Make a release 9.9.9 pinned in a workspace at ``tmp_path``, its wheel in the cache."""

    def make(files: dict[str, str] | None = None, sha256: str | None = None) -> SyntheticRelease:
        ws = Workspace(tmp_path)
        ws.wheels.mkdir(parents=True, exist_ok=True)
        wheel = ws.wheels / "ai_dynamo-9.9.9-py3-none-any.whl"
        digest = build_wheel(wheel, files if files is not None else SYNTHETIC_FILES)
        write_pin(ws.pin, "9.9.9", wheel.name, sha256 or digest)
        return SyntheticRelease(load_pin(ws.pin), ws, wheel)

    return make


@pytest.fixture(autouse=True)
def repo_pin_and_patches_untouched() -> Iterator[None]:
    """Every test leaves the repository's own pin and patches/ as they were: tests work on
    temporary copies (checked around each test)."""
    before = REPO.pin.read_bytes(), {p.name: p.read_bytes() for p in REPO.patches.iterdir()}
    yield
    after = REPO.pin.read_bytes(), {p.name: p.read_bytes() for p in REPO.patches.iterdir()}
    assert after == before
