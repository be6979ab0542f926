"""Running git, by the CLI or GitPython: every git process gets the settings below, never
asks a terminal for credentials, and fails as one line with git's own reason."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import git as gitpython
from gitdb.exc import BadName, BadObject

from dynpatch.errors import ToolkitError
from dynpatch.io import proc
from dynpatch.io.git.values import Identity
from dynpatch.io.proc import reason as git_reason
from dynpatch.io.proc import redact

# No user hooks, no implicit signing, stable diffs, and nothing that would run a program
# the user did not ask for (fsmonitor, ext:: URLs).
_GIT_CONFIG = (
    ("core.hooksPath", "/dev/null"),
    ("core.fsmonitor", "false"),
    ("protocol.ext.allow", "never"),
    ("protocol.fd.allow", "never"),
    ("commit.gpgsign", "false"),
    ("tag.gpgsign", "false"),
    ("diff.noprefix", "false"),
    ("diff.mnemonicPrefix", "false"),
    ("diff.algorithm", "myers"),
    ("diff.renames", "false"),
    ("format.signature", ""),
    ("init.defaultBranch", "main"),
    ("advice.detachedHead", "false"),
    ("am.threeWay", "false"),
    ("core.autocrlf", "false"),
)


def git_env() -> dict[str, str]:
    """The settings above as ``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n`` (above every config
    file), no outer ``git -c`` (it would override them), and no terminal prompt."""
    env = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "LC_ALL": "C"}
    env |= {"GIT_CONFIG_PARAMETERS": "", "GIT_CONFIG_COUNT": str(len(_GIT_CONFIG))}
    for n, (key, value) in enumerate(_GIT_CONFIG):
        env |= {f"GIT_CONFIG_KEY_{n}": key, f"GIT_CONFIG_VALUE_{n}": value}
    return env


def objects_env(repo: gitpython.Repo, objects: Path) -> dict[str, str]:
    """Git's variables that put new objects in ``objects``, borrowing ``repo``'s own."""
    real = str(Path(repo.common_dir, "objects").resolve())
    return {"GIT_OBJECT_DIRECTORY": str(objects), "GIT_ALTERNATE_OBJECT_DIRECTORIES": real}


def git_cmd(
    repo_dir: Path,
    *args: str,
    author: Identity | None = None,
    timeout: float | None = None,
    extra_config: Iterable[str] = (),
    env: Mapping[str, str] = {},
    stdin: str | None = None,
    failed: str | None = None,
) -> str:
    """``git args...`` in ``repo_dir`` with the settings; its stdout. A failure is one line:
    ``failed`` (default: which git command, where) and git's reason, URL user-info removed."""
    full = {**os.environ, **git_env(), **env}
    if author is not None:
        for role in ("AUTHOR", "COMMITTER"):
            full |= {f"GIT_{role}_NAME": author.name, f"GIT_{role}_EMAIL": author.email}
    config = [arg for item in extra_config for arg in ("-c", item)]
    doing = f"git {args[0]}"
    result = proc.run(
        ["git", *config, *args],
        doing=f"{doing} in {repo_dir}",
        timeout=timeout,
        cwd=repo_dir,
        env=full,
        stdin=stdin or "",
        allow_timeout=True,
    )
    if result.returncode != 0 or result.timed_out:
        why = f"did not finish in {timeout:.0f} s" if result.timed_out else result.last_line()
        raise ToolkitError(redact(f"{failed or f'{doing} failed in {repo_dir}'}: {why}"))
    return result.stdout


@contextmanager
def opened(repo_dir: Path, objects: Path | None = None) -> Iterator[gitpython.Repo]:
    """``repo_dir`` as a GitPython ``Repo`` whose git gets :func:`git_env`; errors as one line."""
    try:
        repo = gitpython.Repo(repo_dir)
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        raise ToolkitError(f"{repo_dir} is not a git repository") from None
    repo.git.update_environment(**git_env())
    if objects is not None:
        repo.git.update_environment(**objects_env(repo, objects))
        repo.odb = gitpython.GitCmdObjectDB(str(objects), repo.git)
    try:
        yield repo
    except gitpython.GitCommandNotFound:
        raise ToolkitError(f"cannot run git in {repo_dir}: git is not installed") from None
    except gitpython.GitCommandError as exc:
        stderr = str(exc.stderr).strip().removeprefix("stderr: '").removesuffix("'")
        why = git_reason(stderr) or f"exit status {exc.status}"
        raise ToolkitError(redact(f"git {exc.command[1]} failed in {repo_dir}: {why}")) from None
    except (BadName, BadObject, ValueError) as exc:
        raise ToolkitError(f"cannot read {repo_dir} with git: {exc}") from None
    finally:
        repo.close()
