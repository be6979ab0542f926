"""Fixtures only; what they build lives in tests/fixtures/."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dynpatch.apply.export import PATCHES
from dynpatch.pin import PIN_FILE, load_pin
from tests.fixtures.synthetic import SYNTHETIC_FILES, SyntheticRelease, build_wheel, write_pin


@pytest.fixture
def synthetic_release(tmp_path: Path) -> Callable[..., SyntheticRelease]:
    """Make a release 9.9.9 whose wheel sits in a temp vendor's wheel cache."""

    def make(files: dict[str, str] | None = None, sha256: str | None = None) -> SyntheticRelease:
        vendor = tmp_path / "vendor"
        cache = vendor / "cache" / "wheels"
        cache.mkdir(parents=True, exist_ok=True)
        wheel = cache / "ai_dynamo-9.9.9-py3-none-any.whl"
        digest = build_wheel(wheel, files if files is not None else SYNTHETIC_FILES)
        pin_path = write_pin(vendor / "dynamo.toml", "9.9.9", wheel.name, sha256 or digest)
        return SyntheticRelease(load_pin(pin_path), vendor, wheel)

    return make


@pytest.fixture(autouse=True)
def repo_pin_and_patches_untouched() -> Iterator[None]:
    """Every test leaves the repository's own pin and patches/ as they were: tests work on
    temporary copies (checked around each test)."""
    before = PIN_FILE.read_bytes(), {p.name: p.read_bytes() for p in PATCHES.iterdir()}
    yield
    after = PIN_FILE.read_bytes(), {p.name: p.read_bytes() for p in PATCHES.iterdir()}
    assert after == before
