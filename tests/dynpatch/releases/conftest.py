"""Every test of the matrix and bump must leave the repository's own pin and patches/ as
they were: they work on temporary copies (checked around each test)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dynpatch.patch.apply import PATCHES
from dynpatch.pin import PIN_FILE


@pytest.fixture(autouse=True)
def repo_pin_and_patches_untouched() -> Iterator[None]:
    before = PIN_FILE.read_bytes(), {p.name: p.read_bytes() for p in PATCHES.iterdir()}
    yield
    after = PIN_FILE.read_bytes(), {p.name: p.read_bytes() for p in PATCHES.iterdir()}
    assert after == before
