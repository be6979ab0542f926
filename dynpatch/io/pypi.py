"""PyPI: the index's list of a package's wheels, wheels downloaded whole into the cache and
laid out as files, and pip installs, every pip call through :mod:`dynpatch.io.proc`."""

from __future__ import annotations

import hashlib
import os
import sys
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import faults, files, proc

_WHEEL_ONLY = ("--no-deps", "--only-binary=:all:")


def _pip(verb: str, *args: str, shown: str, timeout: float, python: Path | None = None) -> None:
    quiet = ("--disable-pip-version-check", "--quiet")
    cmd = [str(python or sys.executable), "-m", "pip", verb, *quiet, *args]
    proc.check(cmd, doing=f"pip {verb} {shown}", timeout=timeout)


def _download(dest: Path, *spec: str, want: str) -> Path:
    """The one wheel named ``want`` (a glob) that ``pip download spec`` puts in ``dest``."""
    shown = " ".join(spec)
    _pip("download", *_WHEEL_ONLY, "-d", str(dest), *spec, shown=shown, timeout=600)
    faults.checkpoint("download.partial")
    got = sorted(dest.glob(want))
    if len(got) != 1:
        names = ", ".join(p.name for p in dest.iterdir()) or "nothing"
        raise ToolkitError(f"pip download {shown} gave {names}, not one {want}")
    return got[0]


def download_wheel(package: str, version: str, wheel: str, cache_dir: Path) -> Path:
    """The wheel file ``wheel`` of ``package==version`` from ``cache_dir``, else downloaded
    into a scratch folder and renamed into the cache only when whole (sha256: the caller's)."""
    cached = cache_dir / wheel
    if cached.is_file():
        return cached
    with files.owned_dir(cache_dir, ".download-") as tmp:
        got = _download(tmp, f"{package}=={version}", want=wheel)
        with files.os_errors(f"cannot put {wheel} into the cache {cache_dir}"):
            os.replace(got, cached)
    return cached


def sha256_of(path: Path) -> str:
    with files.os_errors(f"cannot read {path}"), path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def lay_out_wheel(
    wheel: Path, dest: Path, wheel_prefix: str, repo_prefix: str, exclude: Iterable[str]
) -> int:
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
                files.write_new(target, zf.read(info))
                target.chmod(0o755 if (info.external_attr >> 16) & 0o111 else 0o644)
                count += 1
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ToolkitError(
            f"{wheel} is not a readable wheel ({exc}); delete it and rerun"
        ) from None
    return count


def download_newest_wheel(package: str, dest: Path) -> Path:
    """The newest wheel of ``package``, pre-releases included; versions without a wheel
    (dynamo's dev sdists are stubs) are skipped by ``--only-binary``."""
    return _download(dest, "--pre", package, want="*.whl")


def pip_install_target(requirement: str, target: Path) -> None:
    args = ("--target", str(target), requirement)
    _pip("install", *_WHEEL_ONLY, *args, shown=requirement, timeout=1200)


def pip_install_into(python: Path, requirements: Iterable[str]) -> None:
    wanted = list(requirements)
    _pip("install", *wanted, shown=" ".join(wanted), timeout=1200, python=python)
