"""All git and network I/O of the toolkit lives here (git, PyPI downloads, pip installs).

Everything else works on paths and strings. Every git call pins the settings that
would otherwise make output depend on the caller's configuration (signing, hooks,
diff prefixes, abbreviation lengths), so results are reproducible byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import git

from codemods.errors import ToolkitError

# Settings passed to every git command: no user hooks, no implicit signing, stable diffs.
_GIT_CONFIG = (
    "core.hooksPath=/dev/null",
    "commit.gpgsign=false",
    "tag.gpgsign=false",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.algorithm=myers",
    "diff.renames=false",
    "format.signature=",
    "init.defaultBranch=main",
    "advice.detachedHead=false",
    "am.threeWay=false",
    "core.autocrlf=false",
)
# Never ask a terminal for credentials: an unreachable remote must fail, not hang.
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "LC_ALL": "C"}
_IDENTITY = re.compile(r"^\s*(?P<name>[^<>]*?)\s*<(?P<email>[^<>\s]+@[^<>\s]+)>\s*$")
UPSTREAM_IDENTITY = "upstream release <upstream-release@dynpatch.invalid>"


@dataclass(frozen=True)
class Identity:
    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


def parse_identity(text: str) -> Identity:
    match = _IDENTITY.match(text or "")
    if not match or not match["name"]:
        raise ToolkitError(f"not an identity of the form 'Name <email>': {text!r}")
    return Identity(match["name"], match["email"])


def configured_identity(repo_dir: Path | None = None) -> Identity | None:
    """``user.name`` / ``user.email`` from git config (repository, then global)."""
    cfg = (
        git.Repo(repo_dir).config_reader()
        if repo_dir
        else git.GitConfigParser([os.path.expanduser("~/.gitconfig")], read_only=True)
    )
    try:
        name = cfg.get_value("user", "name", "")
        email = cfg.get_value("user", "email", "")
    except Exception:
        return None
    return Identity(str(name), str(email)) if name and email else None


def _git_env(author: Identity | None = None, date: str | None = None) -> dict[str, str]:
    env = dict(_ENV)
    if author is not None:
        env |= {
            "GIT_AUTHOR_NAME": author.name,
            "GIT_AUTHOR_EMAIL": author.email,
            "GIT_COMMITTER_NAME": author.name,
            "GIT_COMMITTER_EMAIL": author.email,
        }
    if date is not None:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return env


def git_cmd(
    repo_dir: Path,
    *args: str,
    author: Identity | None = None,
    date: str | None = None,
    timeout: float | None = None,
    extra_config: Iterable[str] = (),
) -> str:
    """Run ``git args...`` in ``repo_dir`` with the pinned settings; return stdout."""
    config: list[str] = []
    for item in (*_GIT_CONFIG, *extra_config):
        config += ["-c", item]
    g = git.Git(str(repo_dir))
    try:
        return g.execute(  # type: ignore[call-overload,no-any-return]
            ["git", *config, *args],
            env=_git_env(author, date),
            kill_after_timeout=timeout,
            strip_newline_in_stdout=False,
        )
    except git.GitCommandError as exc:
        detail = _last_line(exc.stderr) or _last_line(str(exc))
        raise ToolkitError(f"git {args[0]} failed in {repo_dir}: {detail}") from None


def _last_line(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    lines = [
        ln.strip().removeprefix("stderr: ").strip("'").strip() for ln in (text or "").splitlines()
    ]
    lines = [ln for ln in lines if ln and not ln.startswith("hint:")]
    return lines[-1] if lines else ""


# --- network: PyPI ---------------------------------------------------------------


def download_wheel(
    package: str, version: str, wheel: str, cache_dir: Path, timeout: float = 600
) -> Path:
    """The wheel file ``wheel`` of ``package==version``, from ``cache_dir`` or PyPI."""
    cached = cache_dir / wheel
    if cached.is_file():
        return cached
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".download-") as tmp:
        cmd = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            "--disable-pip-version-check", "--quiet", "-d", tmp, f"{package}=={version}",
        ]  # fmt: skip
        _pip(cmd, f"pip download {package}=={version}",
             f"pip could not download {package}=={version}", timeout)  # fmt: skip
        got = Path(tmp) / wheel
        if not got.is_file():
            names = ", ".join(p.name for p in Path(tmp).iterdir()) or "nothing"
            raise ToolkitError(f"pip download gave {names}, not the pinned {wheel}")
        os.replace(got, cached)
    return cached


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- materialising and verifying checkouts ----------------------------------------


def lay_out_wheel(
    wheel: Path, dest: Path, wheel_prefix: str, repo_prefix: str, exclude: Iterable[str]
) -> int:
    """Extract the files under ``wheel_prefix`` into ``dest/repo_prefix``; count them."""
    skip = set(exclude)
    count = 0
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
    return count


def init_repo_with_commit(
    work_dir: Path, message: str, author: Identity, date: str, tag: str
) -> str:
    """``git init`` ``work_dir``, commit everything in it, tag it; return the commit id."""
    git_cmd(work_dir, "init", "-q")
    git_cmd(work_dir, "add", "-A")
    git_cmd(work_dir, "commit", "-q", "--no-verify", "-m", message, author=author, date=date)
    git_cmd(work_dir, "tag", tag)
    return rev_parse(work_dir, "HEAD") or ""


def clone(url: str, ref: str, dest: Path, timeout: float) -> str:
    """Clone ``url`` at ``ref`` (tag, branch or commit) into ``dest``; return the commit.

    Fails within ``timeout`` seconds with one line when the remote is unreachable.
    """
    dest.mkdir(parents=True)
    git_cmd(dest, "init", "-q", timeout=timeout)
    git_cmd(dest, "remote", "add", "origin", url)
    try:
        git_cmd(
            dest, "fetch", "-q", "--depth=1", "--no-tags", "origin", ref,
            timeout=timeout,
            extra_config=("http.lowSpeedLimit=1000", "http.lowSpeedTime=30"),
        )  # fmt: skip
    except ToolkitError as exc:
        raise ToolkitError(
            f"cannot fetch {ref} from {url}: {str(exc).split(': ', 2)[-1]}"
        ) from None
    git_cmd(dest, "checkout", "-q", "--detach", "FETCH_HEAD")
    return rev_parse(dest, "HEAD") or ""


def rev_parse(repo_dir: Path, rev: str) -> str | None:
    try:
        return git_cmd(repo_dir, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}").strip()
    except ToolkitError:
        return None


def tree_of(repo_dir: Path, rev: str) -> str:
    return git_cmd(repo_dir, "rev-parse", f"{rev}^{{tree}}").strip()


def commit_message(repo_dir: Path, rev: str) -> str:
    return git_cmd(repo_dir, "log", "-1", "--format=%B", rev)


def local_changes(repo_dir: Path) -> list[str]:
    """``git status --porcelain`` lines (untracked files included)."""
    out = git_cmd(repo_dir, "status", "--porcelain", "--untracked-files=normal")
    return [ln for ln in out.splitlines() if ln.strip()]


def is_git_repo(path: Path) -> bool:
    try:
        git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return False
    return True


def commit_files(
    repo_dir: Path,
    branch: str,
    base: str,
    files: Mapping[str, str],
    message: str,
    author: Identity,
    date: str,
) -> str:
    """Point ``branch`` at ``base``, write ``files``, commit with DCO sign-off; commit id."""
    git_cmd(repo_dir, "checkout", "-q", "-B", branch, base)
    for rel, text in files.items():
        path = repo_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    git_cmd(repo_dir, "add", "--", *files)
    git_cmd(
        repo_dir, "commit", "-q", "--no-verify", "--signoff", "-m", message,
        author=author, date=date,
    )  # fmt: skip
    return rev_parse(repo_dir, "HEAD") or ""


def format_patch(repo_dir: Path, base: str, head: str, out_dir: Path) -> list[Path]:
    """``git format-patch base..head`` into ``out_dir`` in a reproducible form."""
    out = git_cmd(
        repo_dir, "format-patch", "--full-index", "--no-signature", "--no-renames",
        f"--base={base}", "-o", str(out_dir), f"{base}..{head}",
    )  # fmt: skip
    return [Path(line) for line in out.splitlines() if line.strip()]


def clone_at(src_repo: Path, rev: str, dest: Path) -> None:
    """A throwaway clone of a local repository, checked out (detached) at ``rev``."""
    git_cmd(src_repo.parent, "clone", "-q", "--no-checkout", str(src_repo), str(dest))
    git_cmd(dest, "checkout", "-q", "--detach", rev)


def am(repo_dir: Path, patches: Iterable[Path]) -> None:
    """``git am`` the patches (strict: no three-way fallback)."""
    try:
        git_cmd(
            repo_dir, "am", "-q", *map(str, patches),
            author=parse_identity(UPSTREAM_IDENTITY),  # committer of the applied commits
        )  # fmt: skip
    except ToolkitError as exc:
        git_cmd(repo_dir, "am", "--abort")
        raise ToolkitError(f"patch series does not apply with git am: {exc}") from None


def reverse_applies(repo_dir: Path, patches: Iterable[Path]) -> None:
    """Check the patches reverse cleanly on ``repo_dir``'s work tree (last first)."""
    for patch in reversed(list(patches)):
        git_cmd(repo_dir, "apply", "--check", "-R", str(patch))


# --- files --------------------------------------------------------------------------


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` via a temp file and rename (never half-written)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def staging_dir(final: Path):  # type: ignore[no-untyped-def]
    """Build a directory next to ``final``; move it into place only on success."""
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}."))
    try:
        yield tmp
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


# --- the PR branch: config, trailers, signing, refs, remotes (used by codemods.pr) --------

# Settings that would otherwise let the caller's configuration change what the PR step
# reads or sends: signature output mixed into logs, colour, tags or signed pushes.
_PR_READ_CONFIG = ("log.showSignature=false", "color.ui=false")
_PUSH_CONFIG = ("push.followTags=false", "push.gpgSign=false", "push.recurseSubmodules=no")


@dataclass(frozen=True)
class Signing:
    """How commits are signed: git's own ``gpg.format`` and ``user.signingkey``."""

    format: str  # openpgp | ssh | x509
    key: str | None  # None: git's default key for the format (openpgp: committer email)
    allowed_signers: Path | None = None  # ssh only: what ``verify-commit`` trusts

    def config(self) -> tuple[str, ...]:
        items = [f"gpg.format={self.format}"]
        if self.key:
            items.append(f"user.signingkey={self.key}")
        if self.allowed_signers is not None:
            items.append(f"gpg.ssh.allowedSignersFile={self.allowed_signers}")
        return tuple(items)


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    tree: str
    author: Identity
    committer: Identity
    message: str
    signed: bool  # carries a gpgsig header (verified separately)

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]


def config_get(repo_dir: Path, key: str) -> str | None:
    """``git config --get key`` as git resolves it (repository, global, system, env)."""
    try:
        value = git_cmd(repo_dir, "config", "--get", key).strip()
    except ToolkitError:  # exit 1: not set
        return None
    return value or None


def valid_branch_name(repo_dir: Path, name: str) -> bool:
    try:
        git_cmd(repo_dir, "check-ref-format", "--branch", name)
    except ToolkitError:
        return False
    return True


def add_trailer(message: str, trailer: str) -> str:
    """``message`` with ``trailer`` added at the end by ``git interpret-trailers``.

    An identical trailer already present is not added twice.
    """
    with tempfile.TemporaryDirectory(prefix="dynpatch-msg-") as tmp:
        path = Path(tmp) / "message"
        path.write_text(message, encoding="utf-8")
        return git_cmd(
            Path(tmp), "interpret-trailers", "--where", "end", "--if-exists", "addIfDifferent",
            "--if-missing", "add", "--trailer", trailer, str(path),
        )  # fmt: skip


def amend_head(
    repo_dir: Path, message: str, author: Identity, signing: Signing | None = None
) -> str:
    """Rewrite HEAD as ``author``'s (author and committer, dated now) with ``message``.

    With ``signing`` the commit is signed by git itself (``-S``); without, explicitly not.
    Returns the new commit id.
    """
    with tempfile.TemporaryDirectory(prefix="dynpatch-msg-") as tmp:
        path = Path(tmp) / "message"
        path.write_text(message, encoding="utf-8")
        git_cmd(
            repo_dir, "commit", "--amend", "-q", "--no-verify", "--reset-author",
            "--cleanup=whitespace", "-F", str(path), "-S" if signing else "--no-gpg-sign",
            author=author, extra_config=signing.config() if signing else (),
        )  # fmt: skip
    return rev_parse(repo_dir, "HEAD") or ""


def commits_between(repo_dir: Path, base: str, tip: str) -> list[CommitInfo]:
    """The commits in ``base..tip``, oldest first."""
    out = git_cmd(
        repo_dir, "log", "--reverse", "--format=%H%x00%T%x00%an%x00%ae%x00%cn%x00%ce%x00%B%x1e",
        f"{base}..{tip}", extra_config=_PR_READ_CONFIG,
    )  # fmt: skip
    commits = []
    for record in out.split("\x1e"):
        record = record.lstrip("\n")
        if not record:
            continue
        sha, tree, an, ae, cn, ce, message = record.split("\x00", 6)
        header = git_cmd(repo_dir, "cat-file", "commit", sha).split("\n\n", 1)[0]
        signed = any(ln.startswith(("gpgsig ", "gpgsig-sha256 ")) for ln in header.splitlines())
        commits.append(CommitInfo(sha, tree, Identity(an, ae), Identity(cn, ce), message, signed))
    return commits


def verify_commit(repo_dir: Path, sha: str, signing: Signing) -> str:
    """``git verify-commit`` (raises when the signature is bad or missing); then git's
    own account of it from ``git log --show-signature``, one line."""
    config = (*signing.config(), *_PR_READ_CONFIG)
    git_cmd(repo_dir, "verify-commit", sha, extra_config=config)
    status = git_cmd(repo_dir, "log", "-1", "--format=%G?", sha, extra_config=config).strip()
    shown = git_cmd(
        repo_dir, "log", "-1", "--show-signature", "--format=", sha, extra_config=config
    )
    lines = [ln.removeprefix("gpg:").strip() for ln in shown.splitlines() if ln.strip()]
    good = [ln for ln in lines if ln.startswith("Good ")]
    return f"[{status}] " + (good[0] if good else (lines[0] if lines else "signature verified"))


def ssh_public_key(key: str) -> str:
    """The public half of an SSH ``user.signingkey`` (literal, .pub file or private key)."""
    if key.startswith("key::"):
        return key.removeprefix("key::").strip()
    if key.startswith(("ssh-", "ecdsa-", "sk-")):
        return key.strip()
    path = Path(key).expanduser()
    pub = path if path.suffix == ".pub" else path.with_name(path.name + ".pub")
    if pub.is_file():
        return pub.read_text().strip()
    if not path.is_file():
        raise ToolkitError(f"SSH signing key {key} not found")
    proc = subprocess.run(
        ["ssh-keygen", "-y", "-P", "", "-f", str(path)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30,
    )  # fmt: skip
    if proc.returncode != 0:
        raise ToolkitError(f"cannot read the public key of {key}: {_last_line(proc.stderr)}")
    return proc.stdout.strip()


def fetch_head_into(repo_dir: Path, source_repo: Path, ref: str) -> None:
    """Copy ``source_repo``'s HEAD commit (and its history) into ``repo_dir`` as ``ref``.

    Only objects and that one ref change: no work tree, index or HEAD is touched.
    """
    git_cmd(
        repo_dir, "fetch", "-q", "--no-tags", "--no-write-fetch-head", str(source_repo),
        f"+HEAD:{ref}",
    )  # fmt: skip


def ref_exists(repo_dir: Path, ref: str) -> bool:
    try:
        git_cmd(repo_dir, "show-ref", "--verify", "--quiet", ref)
    except ToolkitError:
        return False
    return True


def update_ref(repo_dir: Path, ref: str, new: str, old: str | None, reason: str) -> None:
    """Point ``ref`` at ``new`` only if it still is ``old`` (None: must not exist yet)."""
    git_cmd(repo_dir, "update-ref", "-m", reason, ref, new, old or "0" * len(new))


def delete_ref(repo_dir: Path, ref: str) -> None:
    git_cmd(repo_dir, "update-ref", "-d", ref)


def worktrees_on(repo_dir: Path, branch: str) -> list[Path]:
    """Work trees of ``repo_dir`` that have ``branch`` checked out."""
    out = git_cmd(repo_dir, "worktree", "list", "--porcelain")
    found, current = [], None
    for line in out.splitlines():
        if line.startswith("worktree "):
            current = Path(line.removeprefix("worktree "))
        elif line == f"branch refs/heads/{branch}" and current is not None:
            found.append(current)
    return found


def is_ancestor(repo_dir: Path, ancestor: str, descendant: str) -> bool:
    """True when ``ancestor`` is reachable from ``descendant`` (False if either is unknown)."""
    try:
        git_cmd(repo_dir, "merge-base", "--is-ancestor", ancestor, descendant)
    except ToolkitError:
        return False
    return True


def range_diff(repo_dir: Path, base: str, old: str, new: str) -> str:
    """``git range-diff base old new``: how the commits of ``base..old`` became ``base..new``."""
    return git_cmd(
        repo_dir, "range-diff", "--no-color", base, old, new, extra_config=_PR_READ_CONFIG
    )


def diff_stat(repo_dir: Path, base: str, tip: str) -> str:
    return git_cmd(repo_dir, "diff", "--stat=100", base, tip, extra_config=_PR_READ_CONFIG)


def changed_paths(repo_dir: Path, base: str, tip: str) -> list[str]:
    out = git_cmd(repo_dir, "diff", "--name-only", base, tip)
    return [ln for ln in out.splitlines() if ln]


def remote_url(repo_dir: Path, remote: str) -> str:
    """The URL of the configured remote ``remote``, or ``remote`` itself (a URL or path)."""
    try:
        return git_cmd(repo_dir, "remote", "get-url", remote).strip()
    except ToolkitError:
        return remote


def remote_branch_tip(repo_dir: Path, remote: str, branch: str, timeout: float) -> str | None:
    """The commit ``branch`` points at on ``remote`` (network), or None if absent."""
    ref = f"refs/heads/{branch}"
    out = git_cmd(repo_dir, "ls-remote", "--heads", remote, ref, timeout=timeout)
    for line in out.splitlines():
        sha, _, name = line.partition("\t")
        if name == ref:
            return sha
    return None


def push_branch(
    repo_dir: Path, remote: str, branch: str, expect: str | None, timeout: float
) -> None:
    """Push local ``branch`` to ``remote`` only while the remote branch is at ``expect``.

    ``expect`` None means the remote branch must not exist. The lease makes the push
    fail, rather than overwrite, if the remote moved since it was inspected.
    """
    ref = f"refs/heads/{branch}"
    git_cmd(
        repo_dir, "push", "-q", "--no-verify", f"--force-with-lease={ref}:{expect or ''}",
        remote, f"{ref}:{ref}", timeout=timeout, extra_config=_PUSH_CONFIG,
    )  # fmt: skip


# --- the version matrix and pin bumps (used by codemods.matrix and codemods.bump) ---------


def download_newest_wheel(package: str, dest: Path, timeout: float = 600) -> Path:
    """The newest wheel of ``package`` on the index, pre-releases and dev builds included.

    ``--only-binary`` makes pip skip versions that have no wheel (dynamo's dev sdists are
    stubs that point at another index), so this is the newest *usable* build.
    """
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--pre", "--only-binary=:all:",
        "--disable-pip-version-check", "--quiet", "-d", str(dest), package,
    ]  # fmt: skip
    _pip(cmd, f"pip download --pre {package}", f"cannot find the newest {package} on PyPI",
         timeout)  # fmt: skip
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        names = ", ".join(p.name for p in dest.iterdir()) or "nothing"
        raise ToolkitError(f"pip download --pre {package} gave {names}, not one wheel")
    return wheels[0]


def pip_install_target(requirement: str, target: Path, timeout: float = 1200) -> None:
    """``pip install --no-deps --target target requirement`` (a wheel only)."""
    _pip(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--only-binary=:all:",
         "--disable-pip-version-check", "--quiet", "--target", str(target), requirement],
        f"pip install {requirement}", f"pip could not install {requirement}", timeout,
    )  # fmt: skip


def pip_install_into(python: Path, requirements: Iterable[str], timeout: float = 1200) -> None:
    """``pip install requirements`` into the environment of ``python``."""
    wanted = list(requirements)
    _pip(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet", *wanted],
        f"pip install {', '.join(wanted)}", f"pip could not install {', '.join(wanted)}",
        timeout,
    )  # fmt: skip


def _pip(cmd: list[str], doing: str, failed: str, timeout: float) -> None:
    """Run a pip command; a timeout or failure becomes one line: ``failed: <pip's last line>``."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ToolkitError(f"{doing} did not finish in {timeout:.0f}s") from None
    if proc.returncode != 0:
        raise ToolkitError(f"{failed}: {_last_line(proc.stderr) or 'exit ' + str(proc.returncode)}")


def fetch_ref(repo_dir: Path, source_repo: Path, src_ref: str, dst_ref: str) -> None:
    """Copy ``src_ref`` of a local ``source_repo`` (with its history) into ``repo_dir``."""
    git_cmd(repo_dir, "fetch", "-q", "--no-tags", str(source_repo), f"+{src_ref}:{dst_ref}")


def range_diff_ranges(repo_dir: Path, old_range: str, new_range: str) -> str:
    """``git range-diff old_range new_range``: series on two different bases compared."""
    return git_cmd(
        repo_dir, "range-diff", "--no-color", old_range, new_range, extra_config=_PR_READ_CONFIG
    )
