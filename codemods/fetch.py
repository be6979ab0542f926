"""Stage 1, fetch: a pinned dynamo checkout from one of three sources.

* ``pypi`` (default): the pinned wheel, sha256-checked, laid out in the repository
  layout (``dynamo/`` -> ``components/src/dynamo/``) as one tagged commit in a fresh
  git repository under ``vendor/checkouts/``.
* ``git``: a clone of the upstream URL (or any URL) at the release tag or a commit.
* ``path``: an existing local dynamo clone, which must be clean.

A cached checkout is re-verified on every use, and local edits in it are never
thrown away without ``force``.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from codemods import gitio
from codemods.errors import ToolkitError
from codemods.pin import ROOT, Pin, Release

VENDOR = ROOT / "vendor"
SOURCES = ("pypi", "git", "path")


@dataclass(frozen=True)
class Checkout:
    path: Path
    base: str  # commit id of the pristine upstream tree
    source: str
    release: Release
    provenance: tuple[str, ...]  # lines recorded in the exported patch


def fetch(
    pin: Pin,
    source: str = "pypi",
    *,
    version: str | None = None,
    url: str | None = None,
    ref: str | None = None,
    path: Path | None = None,
    force: bool = False,
    vendor: Path = VENDOR,
    timeout: float = 60.0,
) -> Checkout:
    """Materialise (or re-verify the cached copy of) the pinned upstream tree."""
    release = pin.release(version or pin.version)
    if source == "pypi":
        return _from_pypi(pin, release, vendor, force)
    if source == "git":
        return _from_git(pin, release, url or pin.url, ref or release.tag, vendor, force, timeout)
    if source == "path":
        if path is None:
            raise ToolkitError("--source path needs --path DIR (a local dynamo clone)")
        return _from_path(pin, release, path)
    raise ToolkitError(f"unknown source {source!r}: choose one of {', '.join(SOURCES)}")


# --- pypi ---------------------------------------------------------------------------


def checkout_dir(vendor: Path, source: str, name: str) -> Path:
    return vendor / "checkouts" / f"{source}-{re.sub(r'[^A-Za-z0-9._-]+', '_', name)}"


def base_message(pin: Pin, release: Release) -> str:
    return (
        f"ai-dynamo {release.version} ({release.tag}) materialised from PyPI\n\n"
        f"wheel: {release.wheel}\n"
        f"sha256: {release.sha256}\n"
        f"layout: {pin.wheel_prefix} -> {pin.repo_prefix} "
        f"(build-generated {', '.join(pin.exclude)} left out)\n"
    )


def pypi_provenance(pin: Pin, release: Release) -> tuple[str, ...]:
    return (
        f"Upstream: {pin.url} {release.tag} (ai-dynamo {release.version})",
        f"Materialised from PyPI {release.wheel}",
        f"  sha256 {release.sha256},",
        f"  laid out as {pin.repo_prefix}; base-commit below names that tree,",
        "  not an upstream commit. The patch applies to the tag with `git am`.",
    )


def _from_pypi(pin: Pin, release: Release, vendor: Path, force: bool) -> Checkout:
    dest = checkout_dir(vendor, "pypi", release.version)
    if dest.exists() and not force:
        _verify_cached(dest, release)
    else:
        materialise_pypi(pin, release, dest, vendor / "cache" / "wheels")
    base = gitio.rev_parse(dest, release.base_tag) or ""
    return Checkout(dest, base, "pypi", release, pypi_provenance(pin, release))


def materialise_pypi(pin: Pin, release: Release, dest: Path, wheel_cache: Path) -> str:
    """Build ``dest`` from the sha256-checked wheel; return the base commit id."""
    wheel = gitio.download_wheel(pin.package, release.version, release.wheel, wheel_cache)
    digest = gitio.sha256_of(wheel)
    if digest != release.sha256:
        wheel.unlink()  # never trust a bad download twice
        raise ToolkitError(
            f"sha256 mismatch for {release.wheel}: pinned {release.sha256}, got {digest}"
        )
    with gitio.staging_dir(dest) as tmp:
        if not gitio.lay_out_wheel(wheel, tmp, pin.wheel_prefix, pin.repo_prefix, pin.exclude):
            raise ToolkitError(f"{release.wheel} holds no files under {pin.wheel_prefix}")
        author = gitio.parse_identity(gitio.UPSTREAM_IDENTITY)
        base = gitio.init_repo_with_commit(
            tmp, base_message(pin, release), author, pin.date, release.base_tag
        )
        tree = gitio.tree_of(tmp, base)
        if release.tree and tree != release.tree:
            raise ToolkitError(
                f"laid-out tree of {release.wheel} is {tree}, pin records {release.tree}"
            )
    return base


def _verify_cached(dest: Path, release: Release) -> None:
    """Refuse a cached checkout that is not what the pin says, or has local edits."""
    rebuild = "rerun with --force to rebuild it"
    if not gitio.is_git_repo(dest):
        raise ToolkitError(f"cached checkout {dest} is not a git repository; {rebuild}")
    if gitio.rev_parse(dest, release.base_tag) is None:
        raise ToolkitError(f"cached checkout {dest} has no tag {release.base_tag}; {rebuild}")
    if release.sha256 not in gitio.commit_message(dest, release.base_tag):
        raise ToolkitError(
            f"cached checkout {dest} was not built from sha256 {release.sha256}; {rebuild}"
        )
    tree = gitio.tree_of(dest, release.base_tag)
    if release.tree and tree != release.tree:
        raise ToolkitError(
            f"cached checkout {dest}: {release.base_tag} has tree {tree}, "
            f"pin records {release.tree}; {rebuild}"
        )
    _require_clean(dest, "rerun with --force to discard them")


def _require_clean(repo: Path, advice: str) -> None:
    changes = gitio.local_changes(repo)
    if changes:
        shown = ", ".join(c[3:] for c in changes[:3]) + (" ..." if len(changes) > 3 else "")
        raise ToolkitError(f"{repo} has local changes ({shown}); {advice}")


# --- git ----------------------------------------------------------------------------


def _from_git(
    pin: Pin, release: Release, url: str, ref: str, vendor: Path, force: bool, timeout: float
) -> Checkout:
    dest = checkout_dir(vendor, "git", ref)
    if dest.exists() and not force:
        if gitio.rev_parse(dest, release.base_tag) is None:
            raise ToolkitError(
                f"cached checkout {dest} has no tag {release.base_tag}; rerun with --force"
            )
        _require_clean(dest, "rerun with --force to discard them")
    else:
        with gitio.staging_dir(dest) as tmp:
            shutil.rmtree(tmp)
            gitio.clone(url, ref, tmp, timeout)
            gitio.git_cmd(tmp, "tag", release.base_tag, "HEAD")
    base = gitio.rev_parse(dest, release.base_tag) or ""
    provenance = (f"Upstream: {url} {ref} (commit {base})",)
    return Checkout(dest, base, "git", release, provenance)


# --- path ---------------------------------------------------------------------------


def _from_path(pin: Pin, release: Release, path: Path) -> Checkout:
    path = path.resolve()
    if not gitio.is_git_repo(path):
        raise ToolkitError(f"{path} is not a git repository (expected a dynamo clone)")
    if not (path / pin.repo_prefix).is_dir():
        raise ToolkitError(f"{path} has no {pin.repo_prefix}: not a dynamo clone")
    _require_clean(path, "commit or stash them first")
    base = gitio.rev_parse(path, "HEAD") or ""
    provenance = (f"Upstream: local dynamo clone at commit {base}",)
    return Checkout(path, base, "path", release, provenance)
