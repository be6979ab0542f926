"""PyPI: the index's list of a package's wheels, wheels downloaded into the cache whole
(sha256 checked by the caller), laid out as files, and pip installs into other
environments. Every pip call goes through :mod:`dynpatch.io.proc`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import urllib.error
import urllib.request
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import faults, files, proc

_PIP = ("--disable-pip-version-check", "--quiet")
_WHEEL_ONLY = ("--no-deps", "--only-binary=:all:")


def _pip(*args: str, failed: str, timeout: float, python: str | Path = sys.executable) -> None:
    """``python -m pip args...``; a timeout or failure is one line: ``failed: <pip's last
    line>``."""
    cmd = [str(python), "-m", "pip", *args[:1], *_PIP, *args[1:]]
    result = proc.run(cmd, doing=f"pip {args[0]}", timeout=timeout)
    if result.returncode != 0:
        raise ToolkitError(proc.redact(f"{failed}: {result.last_line()}"))


def download_wheel(
    package: str, version: str, wheel: str, cache_dir: Path, timeout: float = 600
) -> Path:
    """The wheel file ``wheel`` of ``package==version``, from ``cache_dir`` or PyPI.

    Downloaded into an owned scratch folder and renamed into the cache only when whole;
    scratch folders of dead runs are removed first.
    """
    cached = cache_dir / wheel
    if cached.is_file():
        return cached
    with files.owned_dir(cache_dir, ".download-") as tmp:
        wanted, failed = f"{package}=={version}", f"pip could not download {package}=={version}"
        _pip("download", *_WHEEL_ONLY, "-d", str(tmp), wanted, failed=failed, timeout=timeout)
        faults.checkpoint("download.partial")
        got = tmp / wheel
        if not got.is_file():
            names = ", ".join(p.name for p in tmp.iterdir()) or "nothing"
            raise ToolkitError(f"pip download gave {names}, not the pinned {wheel}")
        try:
            os.replace(got, cached)
        except OSError as exc:
            raise files.os_error(exc, f"cannot put {wheel} into the cache {cache_dir}") from None
    return cached


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise files.os_error(exc, f"cannot read {path}") from None
    return digest.hexdigest()


def lay_out_wheel(
    wheel: Path, dest: Path, wheel_prefix: str, repo_prefix: str, exclude: Iterable[str]
) -> int:
    """Extract the files under ``wheel_prefix`` into ``dest/repo_prefix``; count them."""
    skip = set(exclude)
    count = 0
    try:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                name = info.filename
                if info.is_dir() or not name.startswith(wheel_prefix):
                    continue
                if Path(name).name in skip or ".." in Path(name).parts:
                    continue
                target = dest / (repo_prefix + name[len(wheel_prefix) :])
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(info))
                executable = (info.external_attr >> 16) & 0o111
                target.chmod(0o755 if executable else 0o644)
                count += 1
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ToolkitError(
            f"{wheel} is not a readable wheel ({exc}); delete it and rerun"
        ) from None
    return count


def download_newest_wheel(package: str, dest: Path, timeout: float = 600) -> Path:
    """The newest wheel of ``package`` on the index, pre-releases and dev builds included.

    ``--only-binary`` makes pip skip versions that have no wheel (dynamo's dev sdists are
    stubs that point at another index), so this is the newest *usable* build.
    """
    dest.mkdir(parents=True, exist_ok=True)
    failed = f"cannot find the newest {package} on PyPI"
    _pip(
        "download", *_WHEEL_ONLY, "-d", str(dest), "--pre", package, failed=failed, timeout=timeout
    )
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        names = ", ".join(p.name for p in dest.iterdir()) or "nothing"
        raise ToolkitError(f"pip download --pre {package} gave {names}, not one wheel")
    return wheels[0]


def pip_install_target(requirement: str, target: Path, timeout: float = 1200) -> None:
    """``pip install --no-deps --target target requirement`` (a wheel only)."""
    failed = f"pip could not install {requirement}"
    args = ("install", *_WHEEL_ONLY, "--target", str(target), requirement)
    _pip(*args, failed=failed, timeout=timeout)


def pip_install_into(python: Path, requirements: Iterable[str], timeout: float = 1200) -> None:
    """``pip install requirements`` into the environment of ``python``."""
    wanted = list(requirements)
    failed = f"pip could not install {', '.join(wanted)}"
    _pip("install", *wanted, failed=failed, timeout=timeout, python=python)


# --- the index's listing (matrix --all) ------------------------------------------------
# One request to the index's JSON simple API (PEP 691): ``$PIP_INDEX_URL`` when set, else
# PyPI. pip's own listing (``pip index versions``) cannot tell a version that has a wheel
# from one whose only file is a source archive (dynamo's dev sdists are stubs that point
# at another index), and the matrix needs the wheels. Nothing is downloaded here: the
# checkouts fetch each wheel through :func:`download_wheel` and hold it to the sha256
# listed (or pinned).

SIMPLE_INDEX = "https://pypi.org/simple/"
_SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


def list_wheels(package: str, timeout: float = 60) -> dict[str, str]:
    """Every wheel of ``package`` the index lists and has not yanked: file name -> sha256
    (lower case). Any fault is one :class:`ToolkitError` line, without URL user-info."""
    index = os.environ.get("PIP_INDEX_URL") or SIMPLE_INDEX
    url = f"{index.rstrip('/')}/{package}/"
    failed = proc.redact(f"cannot list the files of {package} on {index}")
    request = urllib.request.Request(url, headers={"Accept": _SIMPLE_JSON})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.load(response)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ToolkitError(f"{failed}: the answer is not the index's JSON listing") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise ToolkitError(proc.redact(f"{failed}: {reason}")) from None
    try:
        return {
            f["filename"]: str(f["hashes"]["sha256"]).lower()
            for f in data["files"]
            if f["filename"].endswith(".whl") and not f.get("yanked")
        }
    except (KeyError, TypeError, AttributeError) as exc:
        raise ToolkitError(f"{failed}: the listing lacks {exc}") from None
