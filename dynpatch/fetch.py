"""The pinned dynamo release as a git checkout: its sha256-checked wheel as a reproducible
commit (``pypi``), a ref (``git``) or a clean clone (``path``), re-verified on every use."""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dynpatch import console, releases
from dynpatch.errors import ToolkitError
from dynpatch.io import faults, files, pypi
from dynpatch.io import git as gitio
from dynpatch.pin import Pin, Release, load_pin
from dynpatch.workspace import Workspace

SOURCES = ("pypi", "git", "path")
REBUILD = "rerun with --force to rebuild it"


@dataclass(frozen=True)
class Checkout:
    path: Path
    base: str  # commit id of the pristine upstream tree
    source: str
    release: Release
    provenance: tuple[str, ...]  # lines recorded in the exported patch


@dataclass(frozen=True, kw_only=True)
class FetchOptions:
    source: str = "pypi"
    version: str | None = None
    url: str | None = None
    ref: str | None = None
    path: Path | None = None
    force: bool = False
    timeout: float = 60.0


def source_options(options: FetchOptions, version: str, verb: str = "pr") -> str:
    """The options of ``verb`` (``pr`` or ``matrix``) that fetch the same tree, for a command
    the user is told to run."""
    if options.source == "path":
        return f"--source path --path {shlex.quote(str(options.path))} --version {version}"
    if options.source == "git":
        given = (("url", gitio.redact(options.url or "")), ("ref", options.ref))
        told = [f"--{name} {shlex.quote(value)}" for name, value in given if value]
        return " ".join(["--source git", *told, f"--version {version}"])
    return f"--no-newest --versions {version}" if verb == "matrix" else f"--version {version}"


def pinned(options: FetchOptions, ws: Workspace) -> tuple[Pin, Checkout]:
    pin = load_pin(ws.pin)
    doing = f"fetching ai-dynamo {options.version or pin.version} ({options.source}) ..."
    with console.err.status(doing), locked(pin, options, ws) as checkout:
        return pin, checkout


def fetch(pin: Pin, ws: Workspace, version: str | None = None) -> Checkout:
    """Materialise (or re-verify the cached copy of) the pinned release from PyPI."""
    with locked(pin, FetchOptions(version=version), ws) as checkout:
        return checkout


@contextmanager
def locked(pin: Pin, request: FetchOptions, ws: Workspace) -> Iterator[Checkout]:
    """The checkout, materialised or re-verified, locked for the block."""
    version = request.version or pin.version
    # A release the pin does not list is trusted on first use (its wheel's sha256 recorded).
    release = releases.lookup(pin, version, ws.wheels, ws.tofu, download=request.source == "pypi")
    if request.timeout <= 0:
        raise ToolkitError(f"--timeout must be a positive number of seconds, not {request.timeout}")
    if request.source == "path":
        if request.path is None:
            raise ToolkitError("--source path needs --path DIR (a local dynamo clone)")
        where = request.path.resolve()
        key = f"path-{where.name}-{hashlib.sha256(str(where).encode()).hexdigest()[:12]}"
    else:
        name = f"pypi-{release.version}"
        if request.source == "git":  # one folder per URL and ref
            url = gitio.check_url(request.url or pin.url)
            ref = gitio.check_ref(request.ref or release.tag)
            name = f"git-{ref}-{hashlib.sha256(gitio.redact(url).encode()).hexdigest()[:10]}"
        where = ws.vendor / re.sub(r"[^A-Za-z0-9._-]+", "_", name)
        key = where.name
    with files.lock(ws.locks / f"{key}.lock", f"checkout {where}"):
        if request.source != "path":
            files.sweep(ws.vendor, ".*.staging-*")
            files.recover(where)
        if request.source == "pypi":
            yield _from_pypi(pin, release, where, ws.wheels, request.force)
        elif request.source == "git":
            yield _from_git(pin, release, url, ref, where, request.force, request.timeout)
        else:
            yield _from_path(pin, release, where)


MATERIALISED = "materialised from PyPI"  # the last words of a laid-out tree's commit title


def base_message(pin: Pin, release: Release) -> str:
    return (
        f"ai-dynamo {release.version} ({release.tag.strip('()')}) {MATERIALISED}\n\n"
        f"wheel: {release.wheel}\n"
        f"sha256: {release.sha256}\n"
        f"layout: {pin.wheel_prefix} -> {pin.repo_prefix} "
        f"(build-generated {', '.join(pin.exclude)} left out)\n"
    )


def expected_base(pin: Pin, release: Release, tree: str) -> str:
    """The commit id of ``release`` laid out as ``tree``: the same on every machine."""
    author = gitio.parse_identity(gitio.UPSTREAM_IDENTITY)
    return gitio.commit_id(tree, [], author, pin.date, base_message(pin, release))


def _from_pypi(pin: Pin, release: Release, dest: Path, wheels: Path, force: bool) -> Checkout:
    cached = _reuse(dest, force, lambda: _verify_cached(dest, pin, release))
    base = cached or materialise_pypi(pin, release, dest, wheels)
    provenance = (
        f"Upstream: {gitio.redact(pin.url)} {release.tag} (ai-dynamo {release.version})",
        f"Materialised from PyPI {release.wheel}",
        f"  sha256 {release.sha256},",
        f"  laid out as {pin.repo_prefix}; base-commit below names that tree,",
        "  not an upstream commit. The patch applies to the tag with `git am`.",
    )
    return Checkout(dest, base, "pypi", release, provenance)


def _reuse(dest: Path, force: bool, verify: Callable[[], str]) -> str | None:
    """The cached checkout's base when it verifies (even with ``force``: a rebuild would only
    lose its refs); None to (re)build it: absent, or failing with ``force``."""
    if not (dest.exists() or dest.is_symlink()):
        return None
    try:
        return verify()
    except ToolkitError:
        if force:
            if not dest.is_dir():
                files.remove_tree(dest)  # --force: the swap refuses a file in the way
            return None
        raise


def materialise_pypi(pin: Pin, release: Release, dest: Path, wheel_cache: Path) -> str:
    """Build ``dest`` from the sha256-checked wheel; return the base commit id."""
    wheel = pypi.download_wheel(pin.package, release.version, release.wheel, wheel_cache)
    if (digest := pypi.sha256_of(wheel)) != release.sha256:
        wheel.unlink()  # never trust a bad download twice
        raise ToolkitError(
            f"sha256 mismatch for {release.wheel}: pinned {release.sha256}, got {digest}"
        )
    with files.staged_dir(dest) as tmp:
        try:
            laid_out = pypi.lay_out_wheel(
                wheel, tmp, pin.wheel_prefix, pin.repo_prefix, pin.exclude
            )
        except ToolkitError:
            wheel.unlink(missing_ok=True)  # sha256 matched but unreadable: drop it too
            raise
        if not laid_out:
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
        if base != expected_base(pin, release, tree):
            raise ToolkitError(f"materialised base {base} is not the reproducible commit")
        faults.checkpoint("fetch.staged")
    return base


def _verify_cached(dest: Path, pin: Pin, release: Release) -> str:
    """The base commit of a cached checkout; refuses one the pin does not describe."""
    base = _tagged_base(dest, release)
    tree = gitio.tree_of(dest, release.base_tag)
    if release.tree and tree != release.tree:
        raise ToolkitError(
            f"cached checkout {dest}: {release.base_tag} has tree {tree}, "
            f"pin records {release.tree}; {REBUILD}"
        )
    want = expected_base(pin, release, release.tree or tree)
    if base != want:
        raise ToolkitError(
            f"cached checkout {dest}: {release.base_tag} is commit {base[:12]}, not the "
            f"reproducible base {want[:12]} built from sha256 {release.sha256[:12]}; {REBUILD}"
        )
    return base


def _tagged_base(dest: Path, release: Release) -> str:
    """The commit of the cached checkout's base tag, when it is a clean repository."""
    if not gitio.is_git_repo(dest):
        raise ToolkitError(f"cached checkout {dest} is not a git repository; {REBUILD}")
    if (base := gitio.rev_parse(dest, release.base_tag)) is None:
        raise ToolkitError(f"cached checkout {dest} has no tag {release.base_tag}; {REBUILD}")
    _require_clean(dest, "rerun with --force to discard them")
    return base


def _require_clean(repo: Path, advice: str) -> None:
    if changes := gitio.local_changes(repo):
        shown = ", ".join(c[3:] for c in changes[:3]) + (" ..." if len(changes) > 3 else "")
        raise ToolkitError(f"{repo} has local changes ({shown}); {advice}")


def _from_git(
    pin: Pin, release: Release, url: str, ref: str, dest: Path, force: bool, timeout: float
) -> Checkout:
    public = gitio.redact(url)
    if _reuse(dest, force, lambda: _verify_git_cache(dest, public, ref, release)) is None:
        with files.staged_dir(dest) as tmp:
            commit = gitio.fetch_url(url, ref, tmp, timeout)
            if not (tmp / pin.repo_prefix).is_dir():
                raise ToolkitError(
                    f"{public} at {ref} (commit {commit[:12]}) has no {pin.repo_prefix}: "
                    "not a dynamo tree (nothing cached)"
                )
            gitio.tag(tmp, release.base_tag, commit)
            gitio.config_set(tmp, "dynpatch.url", public)
            gitio.config_set(tmp, "dynpatch.ref", ref)
            faults.checkpoint("fetch.staged")
    base = gitio.rev_parse(dest, release.base_tag) or ""
    return Checkout(dest, base, "git", release, (f"Upstream: {public} {ref} (commit {base})",))


def _verify_git_cache(dest: Path, url: str, ref: str, release: Release) -> str:
    base = _tagged_base(dest, release)
    recorded = (gitio.config_get(dest, "dynpatch.url"), gitio.config_get(dest, "dynpatch.ref"))
    if recorded != (url, ref):
        raise ToolkitError(
            f"cached checkout {dest} records {recorded[0]} at {recorded[1]}, not {url} at "
            f"{ref}; {REBUILD}"
        )
    return base


def _from_path(pin: Pin, release: Release, path: Path) -> Checkout:
    """The user's own clone: never checked out; only objects and the work branch are added."""
    if not gitio.is_git_repo(path):
        raise ToolkitError(
            f"{path} is not a git repository (expected the top folder of a dynamo clone)"
        )
    if not (path / pin.repo_prefix).is_dir():
        raise ToolkitError(f"{path} has no {pin.repo_prefix}: not a dynamo clone")
    _require_clean(path, "commit or stash them first")
    base = gitio.rev_parse(path, "HEAD") or ""
    provenance = (f"Upstream: local dynamo clone at commit {base}",)
    return Checkout(path, base, "path", release, provenance)
