"""Which releases the matrix runs, and how far each one's wheel is trusted.

Releases listed in the pin's ``[matrix]`` table have their sha256 in the pin. The newest
release or dev wheel on PyPI is found at run time, and ``--all`` takes every wheel PyPI
lists from the pin's ``[matrix] all_from`` on; unless the pin happens to list such a
version, its sha256 is *trust on first use*: the digest first seen (of the download, or
as the index lists it) is recorded under ``.cache/tofu/`` and every later use must
match it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import files, pypi
from dynpatch.pin import Pin, Release, version_key

PINNED = "pinned"
TOFU = "trust-on-first-use"

_DEV = re.compile(r"\.dev\d+")


@dataclass(frozen=True)
class ReleaseCandidate:
    release: Release
    trust: str  # PINNED or TOFU
    newest: bool = False  # the newest build on PyPI, found at run time
    note: str = ""  # how the sha256 was obtained, for the report


def wheel_name(package: str, version: str) -> str:
    """dynamo's wheels are pure Python: ``ai_dynamo-X-py3-none-any.whl``."""
    return f"{package.replace('-', '_')}-{version}-py3-none-any.whl"


def release_for(pin: Pin, version: str, sha256: str, tree: str = "") -> Release:
    """A release entry for ``version`` as the pin would record it."""
    tag = f"v{version}" if not _DEV.search(version) else "(dev build: no git tag)"
    return Release(version, tag, wheel_name(pin.package, version), sha256.lower(), tree)


def pinned(pin: Pin, versions: list[str]) -> list[ReleaseCandidate]:
    """Candidates for releases the pin knows (an unknown one is an error)."""
    return [ReleaseCandidate(pin.release(v), PINNED) for v in versions]


def newest(pin: Pin, wheel_cache: Path, tofu_dir: Path) -> ReleaseCandidate:
    """The newest release or dev wheel on PyPI, as a candidate.

    Always asks PyPI (a new build may have appeared). The wheel lands in the wheel cache;
    if the pin lists the version its sha256 must match, otherwise the first download's
    digest is recorded and later downloads must match that.
    """
    wheel_cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=wheel_cache, prefix=".newest-") as tmp:
        got = pypi.download_newest_wheel(pin.package, Path(tmp))
        prefix = f"{pin.package.replace('-', '_')}-"
        if not got.name.startswith(prefix):
            raise ToolkitError(f"pip download --pre {pin.package} gave {got.name}")
        version = got.name[len(prefix) :].split("-", 1)[0]
        if got.name != wheel_name(pin.package, version):
            raise ToolkitError(f"newest {pin.package} {version} is not a pure-Python wheel")
        digest = pypi.sha256_of(got)
        cached = wheel_cache / got.name
        if cached.is_file() and pypi.sha256_of(cached) != digest:
            raise ToolkitError(
                f"PyPI now serves a different {got.name} (sha256 {digest}) than the one "
                f"cached in {wheel_cache}: refusing it"
            )
        if not cached.is_file():
            shutil.move(str(got), cached)
    if version in pin.releases:
        release = pin.release(version)
        if release.sha256 != digest:
            raise ToolkitError(
                f"sha256 mismatch for {got.name}: pinned {release.sha256}, PyPI gave {digest}"
            )
        return ReleaseCandidate(release, PINNED, newest=True, note="newest on PyPI; sha256 pinned")
    return _tofu(pin, version, digest, tofu_dir, newest=True, seen="this download")


def on_index(pin: Pin, listing: dict[str, str], since: str) -> dict[str, str]:
    """Version -> sha256 of every pure-Python wheel of the pin's package in ``listing``
    (:func:`~dynpatch.io.pypi.list_wheels`) at or after ``since``, dev builds included, in
    release order."""
    prefix, start = f"{pin.package.replace('-', '_')}-", version_key(since)
    found = {}
    for name, digest in listing.items():
        version = name.removeprefix(prefix).split("-", 1)[0]
        if name == wheel_name(pin.package, version) and version_key(version) >= start:
            found[version] = digest
    return {v: found[v] for v in sorted(found, key=version_key)}


def indexed(pin: Pin, wheels: dict[str, str], tofu_dir: Path) -> list[ReleaseCandidate]:
    """Candidates for the ``on_index`` wheels: pinned ones must have the pinned sha256, the
    others are trusted on first use (what the index lists is recorded, later runs held to
    it); the checkouts then hold each downloaded wheel to that sha256."""
    out = []
    for version, listed in wheels.items():
        digest = listed.lower()
        if version in pin.releases:
            release = pin.release(version)
            if release.sha256 != digest:
                raise ToolkitError(
                    f"sha256 mismatch for {release.wheel}: pinned {release.sha256}, "
                    f"PyPI's index lists {digest}"
                )
            out.append(ReleaseCandidate(release, PINNED))
        else:
            out.append(_tofu(pin, version, digest, tofu_dir, newest=False, seen="PyPI's index"))
    return out


def _tofu(
    pin: Pin, version: str, digest: str, tofu_dir: Path, *, newest: bool, seen: str
) -> ReleaseCandidate:
    record = tofu_dir / f"{pin.package}-{version}.json"
    if record.is_file():
        first = json.loads(record.read_text())
        if first["sha256"] != digest:
            raise ToolkitError(
                f"{pin.package} {version}: PyPI now gives sha256 {digest}, but the first "
                f"use on {first['recorded']} recorded {first['sha256']} ({record}): refusing it"
            )
        note = (
            f"sha256 {digest} is not in the pin: trust on first use, recorded "
            f"{first['recorded']} in {record.name}; {seen} matches it"
        )
        return ReleaseCandidate(release_for(pin, version, digest), TOFU, newest, note)
    tofu_dir.mkdir(parents=True, exist_ok=True)
    today = dt.datetime.now(dt.UTC).date().isoformat()
    entry = {"package": pin.package, "version": version, "sha256": digest, "recorded": today}
    files.write_atomic(record, json.dumps(entry, indent=2) + "\n")
    note = (
        f"sha256 {digest} is not in the pin: trusted on first use (recorded now, {today}, "
        f"in {record.name}, as {seen} gave it); later runs must match it"
    )
    return ReleaseCandidate(release_for(pin, version, digest), TOFU, newest, note)


def with_candidates(pin: Pin, candidates: list[ReleaseCandidate]) -> Pin:
    """The pin (in memory only) that also lists the trust-on-first-use releases."""
    found = {c.release.version: c.release for c in candidates}
    return dataclasses.replace(pin, releases={**found, **pin.releases})
