"""Every program the toolkit starts: bounded in time, no terminal input, its own process
group (a timeout ends all it started), a failure as one line with no credential in it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from dynpatch.errors import ToolkitError

Cmd = Sequence[str | os.PathLike[str]]
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@")


def redact(text: str) -> str:
    """``text`` with the user-info (``user:token@``) of every URL in it removed."""
    return _USERINFO.sub(r"\g<scheme>", text)


@dataclass(frozen=True)
class ProcResult:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

    def last_line(self) -> str:
        return reason(self.stderr) or f"exit status {self.returncode}"


def reason(stderr: str) -> str:
    """The first ``fatal:``/``error:`` line of ``stderr`` (prefix dropped, as git writes
    them), else its last line that is not a hint; empty when there is none."""
    lines = [ln.strip() for ln in stderr.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("hint:")]
    fatal = [ln.split(":", 1)[1].strip() for ln in lines if ln.startswith(("fatal:", "error:"))]
    return fatal[0] if fatal else lines[-1] if lines else ""


def run(
    cmd: Cmd,
    *,
    doing: str,
    timeout: float | None,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    stdout: IO[str] | int | None = None,
    merge_stderr: bool = False,
    allow_timeout: bool = False,
) -> ProcResult:
    """Run ``cmd`` (``doing`` names it in errors) to the end; output captured unless
    ``stdout`` is a file. Past ``timeout`` its group is killed and it raises, unless
    ``allow_timeout``: then it returns what it printed, ``timed_out`` set."""
    argv = [os.fspath(c) for c in cmd]
    try:
        proc = subprocess.Popen(
            argv,
            text=True,
            start_new_session=True,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE if stdout is None else stdout,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        )
    except OSError as exc:
        why = exc.strerror or exc
        raise ToolkitError(redact(f"cannot run {doing} ({argv[0]}): {why}")) from None
    try:
        got_out, got_err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        got_out, got_err = proc.communicate()
        if not allow_timeout:
            raise ToolkitError(redact(f"{doing} did not finish in {timeout:.0f} s")) from None
        return ProcResult(proc.returncode, got_out or "", got_err or "", timed_out=True)
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    return ProcResult(proc.returncode, got_out or "", got_err or "")


def check(cmd: Cmd, *, doing: str, timeout: float | None, **kw: Any) -> ProcResult:
    result = run(cmd, doing=doing, timeout=timeout, **kw)
    if result.returncode != 0:
        raise ToolkitError(redact(f"{doing} failed: {result.last_line()}"))
    return result


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
