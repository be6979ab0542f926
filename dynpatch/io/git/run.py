"""Running git: every call pins the settings that would otherwise make output depend on
the caller's configuration (hooks, signing, diff prefixes, fsmonitor, ext:: URLs), never
asks a terminal for credentials, and fails as one line with git's own reason."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import proc
from dynpatch.io.git.values import Identity
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
        ["git", *config, *args],
        doing=f"{doing} in {repo_dir}",
        timeout=timeout,
        cwd=repo_dir,
        env=_git_env(author, date, env),
        stdin=stdin if stdin is not None else "",
    )
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
