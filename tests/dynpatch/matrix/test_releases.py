"""Which releases the matrix runs: the newest build on PyPI, trusted on first use and held
to it; the derived pin that lists it; the release order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.io import pypi
from dynpatch.matrix import releases
from dynpatch.pin import load_pin
from tests.fixtures.releases import APPLIES, make_vendor, wheel
from tests.fixtures.synthetic import REPO


def test_newest_is_trusted_on_first_use_then_held_to_it(tmp_path: Path, monkeypatch) -> None:
    v = make_vendor(tmp_path, {"9.9.9": APPLIES}, pinned="9.9.9")
    builds = tmp_path / "pypi"
    builds.mkdir()
    served = {"files": APPLIES}

    def fake_download(package: str, dest: Path, timeout: float = 600) -> Path:
        name, _ = wheel(builds, "9.10.0.dev20260101", served["files"])
        return Path(shutil.copy(builds / name, dest / name))

    monkeypatch.setattr(pypi, "download_newest_wheel", fake_download)
    cache, tofu = tmp_path / "cache", tmp_path / "tofu"
    first = releases.newest(v.pin, cache, tofu)
    assert first.trust == releases.TOFU and first.newest
    assert first.release.version == "9.10.0.dev20260101"
    assert first.release.tag == "(dev build: no git tag)"
    recorded = json.loads((tofu / "ai-dynamo-9.10.0.dev20260101.json").read_text())
    assert recorded["sha256"] == first.release.sha256
    assert first.note == (
        f"sha256 {first.release.sha256} is not in the pin: trusted on first use (recorded "
        f"now, {recorded['recorded']}, in ai-dynamo-9.10.0.dev20260101.json, as this download "
        "gave it); later runs must match it"
    )
    second = releases.newest(v.pin, tmp_path / "cache2", tofu)
    assert second.release == first.release
    assert second.note.endswith(
        "trust on first use, recorded "
        + recorded["recorded"]
        + " in ai-dynamo-9.10.0.dev20260101.json; this download matches it"
    )

    served["files"] = {**APPLIES, "dynamo/extra.py": "x = 1\n"}  # PyPI now serves other bytes
    with pytest.raises(ToolkitError, match=r"now gives sha256 .* but the first use on"):
        releases.newest(v.pin, tmp_path / "cache3", tofu)

    # the stages get a pin that lists it (the real pin file is not changed)
    derived = releases.with_candidates(v.pin, [first])
    assert derived.release("9.10.0.dev20260101").sha256 == first.release.sha256
    assert "9.10.0.dev20260101" not in load_pin(v.pin.path).releases


def test_on_index_takes_pure_python_wheels_from_a_release_on() -> None:
    pin = load_pin(REPO.pin)
    listing = {
        "ai_dynamo-1.2.1-py3-none-any.whl": "a1",
        "ai_dynamo-1.3.0.post1-py3-none-any.whl": "a2",
        "ai_dynamo-1.5.0.dev20260816-py3-none-any.whl": "a3",
        "ai_dynamo-1.4.2-py3-none-any.whl": "a4",
        "ai_dynamo-1.5.0.dev20260816-cp311-cp311-linux_x86_64.whl": "a5",
        "ai_dynamo_runtime-1.6.1-cp310-abi3-manylinux_2_28_x86_64.whl": "a6",
    }
    assert releases.on_index(pin, listing, "1.3.0.post1") == {
        "1.3.0.post1": "a2",
        "1.4.2": "a4",
        "1.5.0.dev20260816": "a3",
    }
    assert list(releases.on_index(pin, listing, "1.4.0")) == ["1.4.2", "1.5.0.dev20260816"]


def test_indexed_holds_pinned_wheels_to_the_pin_and_trusts_the_rest_on_first_use(
    tmp_path: Path,
) -> None:
    v = make_vendor(tmp_path, {"9.9.9": APPLIES}, pinned="9.9.9")
    pinned = v.pin.release("9.9.9")
    tofu = tmp_path / "tofu"
    first = releases.indexed(v.pin, {"9.9.9": pinned.sha256, "9.10.0.dev1": "CD" * 32}, tofu)
    assert [(c.release.version, c.trust, c.newest) for c in first] == [
        ("9.9.9", releases.PINNED, False),
        ("9.10.0.dev1", releases.TOFU, False),
    ]
    assert first[1].release.sha256 == "cd" * 32 and "as PyPI's index gave it" in first[1].note
    again = releases.indexed(v.pin, {"9.10.0.dev1": "cd" * 32}, tofu)
    assert again[0].release == first[1].release and "PyPI's index matches it" in again[0].note
    with pytest.raises(ToolkitError, match=r"9\.10\.0\.dev1: PyPI now gives sha256 ef"):
        releases.indexed(v.pin, {"9.10.0.dev1": "ef" * 32}, tofu)
    with pytest.raises(
        ToolkitError, match=r"sha256 mismatch for ai_dynamo-9\.9\.9-py3.*index lists"
    ):
        releases.indexed(v.pin, {"9.9.9": "00" * 32}, tofu)


def test_version_order() -> None:
    versions = ["1.7.0.dev20261026", "1.2.1", "1.3.0.post1", "1.10.0", "1.7.0", "1.3.1"]
    assert sorted(versions, key=releases.version_key) == [
        "1.2.1",
        "1.3.0.post1",
        "1.3.1",
        "1.7.0.dev20261026",
        "1.7.0",
        "1.10.0",
    ]
