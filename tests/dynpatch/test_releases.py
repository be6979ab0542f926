"""The newest build on PyPI, trusted on first use and held to it (test_matrix.py runs it);
the release order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dynpatch import releases
from dynpatch.errors import ToolkitError
from dynpatch.io import pypi
from dynpatch.pin import load_pin, version_key
from tests.fixtures.releases import APPLIES, wheel
from tests.fixtures.synthetic import REPO

DEV = "9.10.0.dev20260101"


def test_newest_is_trusted_on_first_use_then_held_to_it(tmp_path: Path, monkeypatch) -> None:
    pin = load_pin(REPO.pin)
    builds = tmp_path / "pypi"
    builds.mkdir()
    served = {"files": APPLIES}

    def fake_download(package: str, dest: Path, timeout: float = 600) -> Path:
        name, _ = wheel(builds, DEV, served["files"])
        return Path(shutil.copy(builds / name, dest / name))

    monkeypatch.setattr(pypi, "download_newest_wheel", fake_download)
    cache, tofu = tmp_path / "cache", tmp_path / "tofu"
    first = releases.newest(pin, cache, tofu)
    assert first.trust == releases.TOFU and first.newest
    assert first.release.version == DEV
    assert first.release.tag == "(dev build: no git tag)"
    assert [p.name for p in cache.iterdir()] == [f"ai_dynamo-{DEV}-py3-none-any.whl"]
    recorded = json.loads((tofu / f"ai-dynamo-{DEV}.json").read_text())
    assert recorded["sha256"] == first.release.sha256
    assert first.note == (
        f"sha256 {first.release.sha256} is not in the pin: trusted on first use (recorded "
        f"now, {recorded['recorded']}, in ai-dynamo-{DEV}.json); later runs must match it"
    )
    second = releases.newest(pin, tmp_path / "cache2", tofu)
    assert second.release == first.release
    assert second.note.endswith(
        f"{recorded['recorded']} in ai-dynamo-{DEV}.json; this download matches it"
    )

    served["files"] = {**APPLIES, "dynamo/extra.py": "x = 1\n"}  # PyPI now serves other bytes
    with pytest.raises(ToolkitError, match=r"now gives sha256 .* but the first use on"):
        releases.newest(pin, tmp_path / "cache3", tofu)
    assert list((tmp_path / "cache3").iterdir()) == []  # a refused wheel is not cached


def test_version_order() -> None:
    versions = ["1.7.0.dev20261026", "1.2.1", "1.3.0.post1", "1.10.0", "1.7.0", "1.3.1"]
    assert sorted(versions, key=version_key) == [
        "1.2.1",
        "1.3.0.post1",
        "1.3.1",
        "1.7.0.dev20261026",
        "1.7.0",
        "1.10.0",
    ]
