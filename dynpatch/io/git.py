"""All git and network I/O of the toolkit lives here (git, PyPI downloads, pip installs).

Everything else works on paths and strings. Every git call pins the settings that
would otherwise make output depend on the caller's configuration (signing, hooks,
diff prefixes, abbreviation lengths), so results are reproducible byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import proc
from dynpatch.io.proc import redact

# Settings passed to every git command: no user hooks, no implicit signing, stable diffs,
# and nothing that would run a program the user did not ask for (fsmonitor, ext:: URLs).
_GIT_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "protocol.ext.allow=never",
    "protocol.fd.allow=never",
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
# A name git accepts as an identity: no angle brackets, no control characters, and
# something left once git strips its "crud" characters from the ends.
_IDENTITY = re.compile(
    r"^[ \t]*(?P<name>[^<>\x00-\x1f\x7f]*?)[ \t]*<(?P<email>[^<>\s]+@[^<>\s]+)>[ \t]*\Z"
)
_CRUD = " .,:;<>\"\\'"
UPSTREAM_IDENTITY = "upstream release <upstream-release@dynpatch.invalid>"


@dataclass(frozen=True)
class Identity:
    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


def parse_identity(text: str) -> Identity:
    """``Name <email>`` as git would record it; anything git would refuse or mangle is an
    error here, before anything is written."""
    match = _IDENTITY.match(text or "")
    if not match or not match["name"].strip(_CRUD):
        raise ToolkitError(f"not an identity of the form 'Name <email>': {text!r}")
    return Identity(match["name"], match["email"])


# --- values from the user: never an option to git, never a secret in output ------------

_SCP = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^:]")
_SCHEMES = ("https://", "http://", "ssh://", "git://", "file://")
_HEX = re.compile(r"^[0-9a-f]{7,64}$")


def check_url(url: str, what: str = "--url") -> str:
    """A repository URL or local path that git takes as a location, never as an option
    or a remote helper (``ext::``); returned unchanged."""
    shown = redact(url)
    if not url or url.startswith("-") or any(ord(c) < 32 for c in url):
        raise ToolkitError(f"{what} {shown!r} is not a repository URL or path")
    if url.startswith(_SCHEMES) or _SCP.match(url):
        return url
    if "::" in url or "://" in url:
        raise ToolkitError(
            f"{what} {shown!r}: only https, http, ssh, git and file URLs (or a local path) "
            "are accepted"
        )
    if not Path(url).is_dir():
        raise ToolkitError(f"{what} {shown!r} is neither a URL nor an existing folder")
    return url


def check_ref(ref: str, what: str = "--ref") -> str:
    """A tag, branch or commit id that is a valid git ref name and not an option."""
    if _HEX.match(ref):
        return ref
    bad = not ref or ref.startswith("-") or any(ord(c) <= 32 for c in ref)
    if not bad:
        checked = proc.run(
            ["git", "check-ref-format", "--allow-onelevel", f"refs/dynpatch-check/{ref}"],
            doing="git check-ref-format", timeout=30,
        )  # fmt: skip
        bad = checked.returncode != 0
    if bad:
        raise ToolkitError(f"{what} {ref!r} is not a valid git tag, branch or commit id")
    return ref


def check_remote(remote: str, what: str = "--push") -> str:
    """A configured remote's name, or a URL or path (see :func:`check_url`)."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", remote):
        return remote
    return check_url(remote, what)


def _git_env(
    author: Identity | None = None, date: str | None = None, extra: Mapping[str, str] = {}
) -> dict[str, str]:
    env = {**os.environ, **_ENV, **extra}
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
    env: Mapping[str, str] = {},
    stdin: str | None = None,
) -> str:
    """Run ``git args...`` in ``repo_dir`` with the pinned settings; return stdout.

    A failure is one line: which git command, where, and git's own reason (its
    ``fatal:``/``error:`` line, user-info of URLs removed).
    """
    config: list[str] = []
    for item in (*_GIT_CONFIG, *extra_config):
        config += ["-c", item]
    doing = f"git {args[0]}"
    result = proc.run(
        ["git", *config, *args], doing=f"{doing} in {repo_dir}", timeout=timeout, cwd=repo_dir,
        env=_git_env(author, date, env), stdin=stdin if stdin is not None else "",
    )  # fmt: skip
    if result.returncode != 0:
        reason = git_reason(result.stderr) or f"exit status {result.returncode}"
        raise ToolkitError(redact(f"{doing} failed in {repo_dir}: {reason}"))
    return result.stdout


def git_reason(stderr: str | bytes | None) -> str:
    """The line of git's stderr that says what went wrong: the first ``fatal:`` or
    ``error:`` line (without the prefix), else the last line that is not a hint."""
    if isinstance(stderr, bytes):
        stderr = stderr.decode(errors="replace")
    lines = [ln.strip() for ln in (stderr or "").splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("hint:")]
    for ln in lines:
        for prefix in ("fatal:", "error:"):
            if ln.startswith(prefix):
                return ln.removeprefix(prefix).strip()
    return lines[-1] if lines else ""


# --- repositories and commits ------------------------------------------------------


def init_repo_with_commit(
    work_dir: Path, message: str, author: Identity, date: str, tag: str
) -> str:
    """``git init`` ``work_dir``, commit everything in it, tag it; return the commit id."""
    git_cmd(work_dir, "init", "-q")
    git_cmd(work_dir, "add", "-A")
    git_cmd(work_dir, "commit", "-q", "--no-verify", "-m", message, author=author, date=date)
    git_cmd(work_dir, "tag", tag)
    return rev_parse(work_dir, "HEAD") or ""


def commit_id(tree: str, parents: Sequence[str], author: Identity, date: str, message: str) -> str:
    """The id git gives a commit of ``tree`` with these parents, identity (author and
    committer), ISO 8601 ``date`` and ``message`` (as ``git commit -m`` stores it),
    computed without writing anything."""
    when = datetime.fromisoformat(date)
    offset = when.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds()) // 60
    zone = f"{'-' if minutes < 0 else '+'}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"
    stamp = f"{author} {int(when.timestamp())} {zone}"
    lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
    body = "\n".join([*lines, f"author {stamp}", f"committer {stamp}", "", ""]) + message
    data = body.encode()
    return hashlib.sha1(b"commit %d\0" % len(data) + data).hexdigest()


def fetch_url(url: str, ref: str, dest: Path, timeout: float) -> str:
    """A new repository ``dest`` holding ``url``'s ``ref`` (tag, branch or commit), checked
    out detached; return the commit id.

    The URL is checked (never an option, never a remote helper) and is not stored in the
    repository's config, so no credential in it is written to disk. An unreachable remote
    fails within ``timeout`` seconds with one line.
    """
    check_url(url)
    check_ref(ref)
    dest.mkdir(parents=True, exist_ok=True)
    git_cmd(dest, "init", "-q")
    try:
        git_cmd(
            dest, "fetch", "-q", "--depth=1", "--no-tags", "--no-write-fetch-head",
            "--end-of-options", url, f"+{ref}:refs/dynpatch/fetched",
            timeout=timeout,
            extra_config=("http.lowSpeedLimit=1000", "http.lowSpeedTime=30"),
        )  # fmt: skip
    except ToolkitError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise ToolkitError(redact(f"cannot fetch {ref} from {url}: {reason}")) from None
    git_cmd(dest, "checkout", "-q", "--detach", "refs/dynpatch/fetched")
    git_cmd(dest, "update-ref", "-d", "refs/dynpatch/fetched")
    return rev_parse(dest, "HEAD") or ""


def rev_parse(repo_dir: Path, rev: str) -> str | None:
    try:
        return git_cmd(
            repo_dir, "rev-parse", "-q", "--verify", "--end-of-options", f"{rev}^{{commit}}"
        ).strip()
    except ToolkitError:
        return None


def tree_of(repo_dir: Path, rev: str) -> str:
    return git_cmd(repo_dir, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{tree}}").strip()


def commit_message(repo_dir: Path, rev: str) -> str:
    return git_cmd(repo_dir, "log", "-1", "--format=%B", "--end-of-options", rev)


def local_changes(repo_dir: Path) -> list[str]:
    """``git status --porcelain`` lines (untracked files included)."""
    out = git_cmd(repo_dir, "status", "--porcelain", "--untracked-files=normal")
    return [ln for ln in out.splitlines() if ln.strip()]


def is_git_repo(path: Path) -> bool:
    """``path`` is the top of a git work tree (not merely inside one)."""
    if not path.is_dir():
        return False
    try:
        top = git_cmd(path, "rev-parse", "--show-toplevel").strip()
    except ToolkitError:
        return False
    return Path(top).resolve() == path.resolve()


def config_set(repo_dir: Path, key: str, value: str) -> None:
    git_cmd(repo_dir, "config", "--local", key, value)


def commit_objects(
    repo_dir: Path,
    base: str,
    files_: Mapping[str, str],
    message: str,
    author: Identity,
    date: str,
    objects: Path | None = None,
) -> str:
    """The commit of ``base`` with ``files_`` (repo path -> text) written over it and a
    DCO sign-off by ``author``; return its id.

    Only objects are written (into ``objects`` when given, an object folder that borrows
    the repository's own as alternates): no ref, HEAD, index or work tree changes, so a
    failure or a kill here leaves the repository as it was.
    """
    with tempfile.TemporaryDirectory(prefix="dynpatch-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        if objects is not None:
            real = git_cmd(repo_dir, "rev-parse", "--path-format=absolute", "--git-path", "objects")
            env |= {"GIT_OBJECT_DIRECTORY": str(objects),
                    "GIT_ALTERNATE_OBJECT_DIRECTORIES": real.strip()}  # fmt: skip
        git_cmd(repo_dir, "read-tree", base, env=env)
        for rel, text in files_.items():
            blob = git_cmd(repo_dir, "hash-object", "-w", "--stdin", env=env, stdin=text).strip()
            listed = git_cmd(repo_dir, "ls-tree", base, "--", rel).split()
            mode = listed[0] if listed else "100644"
            git_cmd(
                repo_dir, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{rel}", env=env
            )
        tree = git_cmd(repo_dir, "write-tree", env=env).strip()
        signed = f"{message.rstrip()}\n\nSigned-off-by: {author}\n"
        return git_cmd(
            repo_dir, "commit-tree", tree, "-p", base, "-F", "-",
            author=author, date=date, env=env, stdin=signed,
        ).strip()  # fmt: skip


def update_refs(
    repo_dir: Path, updates: Sequence[tuple[str, str, str | None]], reason: str
) -> None:
    """Move every ``(ref, new, old)`` in one transaction: all or none. ``old`` is what the
    ref must still be (None: it must not exist yet)."""
    zero = "0" * 40
    lines = ["start"]
    lines += [f"update {ref} {new} {old or zero}" for ref, new, old in updates]
    lines += ["prepare", "commit"]
    git_cmd(repo_dir, "update-ref", "-m", reason, "--stdin", stdin="\n".join(lines) + "\n")


def format_patch(
    repo_dir: Path, base: str, head: str, out_dir: Path, objects: Path | None = None
) -> list[Path]:
    """``git format-patch base..head`` into ``out_dir`` in a reproducible form."""
    env = {}
    if objects is not None:
        real = git_cmd(repo_dir, "rev-parse", "--path-format=absolute", "--git-path", "objects")
        env = {"GIT_OBJECT_DIRECTORY": str(objects),
               "GIT_ALTERNATE_OBJECT_DIRECTORIES": real.strip()}  # fmt: skip
    out = git_cmd(
        repo_dir, "format-patch", "--full-index", "--no-signature", "--no-renames",
        f"--base={base}", "-o", str(out_dir), f"{base}..{head}", env=env,
    )  # fmt: skip
    return [Path(line) for line in out.splitlines() if line.strip()]


def clone_at(src_repo: Path, rev: str, dest: Path) -> None:
    """A throwaway clone of a local repository, checked out (detached) at ``rev``."""
    git_cmd(src_repo.parent, "clone", "-q", "--no-checkout", "--", str(src_repo), str(dest))
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


# --- history, refs, signing and remotes ----------------------------------------------

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
    if not name or name.startswith("-") or any(ord(c) <= 32 for c in name):
        return False
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
    result = proc.run(["ssh-keygen", "-y", "-P", "", "-f", str(path)], doing="ssh-keygen",
                      timeout=30)  # fmt: skip
    if result.returncode != 0:
        raise ToolkitError(f"cannot read the public key of {key}: {result.last_line()}")
    return result.stdout.strip()


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


def range_diff(repo_dir: Path, *ranges: str) -> str:
    """``git range-diff``: ``base old new`` (two series on one base), or ``old_range
    new_range`` (series on two bases)."""
    return git_cmd(repo_dir, "range-diff", "--no-color", *ranges, extra_config=_PR_READ_CONFIG)


def diff_stat(repo_dir: Path, base: str, tip: str) -> str:
    return git_cmd(repo_dir, "diff", "--stat=100", base, tip, extra_config=_PR_READ_CONFIG)


def changed_paths(repo_dir: Path, base: str, tip: str) -> list[str]:
    out = git_cmd(repo_dir, "diff", "--name-only", base, tip)
    return [ln for ln in out.splitlines() if ln]


def remote_url(repo_dir: Path, remote: str) -> str:
    """The URL of the configured remote ``remote``, or ``remote`` itself (a URL or path)."""
    check_remote(remote)
    try:
        return git_cmd(repo_dir, "remote", "get-url", "--", remote).strip()
    except ToolkitError:
        return remote


def remote_branch_tip(repo_dir: Path, remote: str, branch: str, timeout: float) -> str | None:
    """The commit ``branch`` points at on ``remote`` (network), or None if absent."""
    ref = f"refs/heads/{branch}"
    check_remote(remote)
    try:
        out = git_cmd(
            repo_dir, "ls-remote", "--heads", "--end-of-options", remote, ref, timeout=timeout
        )
    except ToolkitError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise ToolkitError(redact(f"cannot read remote {remote}: {reason}")) from None
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
    check_remote(remote)
    try:
        git_cmd(
            repo_dir, "push", "-q", "--no-verify", f"--force-with-lease={ref}:{expect or ''}",
            "--end-of-options", remote, f"{ref}:{ref}", timeout=timeout,
            extra_config=_PUSH_CONFIG,
        )  # fmt: skip
    except ToolkitError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise ToolkitError(redact(f"push of {branch} to {remote} failed: {reason}")) from None


def fetch_ref(repo_dir: Path, source_repo: Path, src_ref: str, dst_ref: str) -> None:
    """Copy ``src_ref`` of a local ``source_repo`` (with its history) into ``repo_dir`` as
    ``dst_ref``. Only objects and that one ref change: no work tree, index or HEAD."""
    git_cmd(
        repo_dir, "fetch", "-q", "--no-tags", "--no-write-fetch-head", str(source_repo),
        f"+{src_ref}:{dst_ref}",
    )  # fmt: skip
