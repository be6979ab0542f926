"""Every program the toolkit starts goes through here: bounded in time, no terminal input,
its own process group (a timeout ends the program and everything it started), and a
failure to start or finish as one line with no credential in it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from dynpatch.errors import ToolkitError

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
        """What went wrong (:func:`reason`), else the exit status."""
        return reason(self.stderr) or f"exit status {self.returncode}"


def reason(stderr: str | bytes | None) -> str:
    """The line of a program's stderr that says what went wrong: the first ``fatal:`` or
    ``error:`` line (without the prefix, as git writes them), else the last line that is
    not a hint; empty when there is none."""
    if isinstance(stderr, bytes):
        stderr = stderr.decode(errors="replace")
    lines = [ln.strip() for ln in (stderr or "").splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("hint:")]
    for ln in lines:
        for prefix in ("fatal:", "error:"):
            if ln.startswith(prefix):
                return ln.removeprefix(prefix).strip()
    return lines[-1] if lines else ""


def run(
    cmd: Sequence[str | os.PathLike[str]],
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
    """Run ``cmd`` to the end; its status and output (text).

    ``doing`` names the work for the error line. Output is captured unless ``stdout`` is
    a file. A program that cannot be started raises; one that runs past ``timeout`` is
    killed with its process group and raises, unless ``allow_timeout``, which returns
    what it printed with ``timed_out`` set.
    """
    argv = [os.fspath(c) for c in cmd]
    out = subprocess.PIPE if stdout is None else stdout
    err = subprocess.STDOUT if merge_stderr else subprocess.PIPE
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            text=True,
            start_new_session=True,
        )
    except OSError as exc:
        raise ToolkitError(
            redact(f"cannot run {doing} ({argv[0]}): {exc.strerror or exc}")
        ) from None
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


def check(
    cmd: Sequence[str | os.PathLike[str]], *, doing: str, timeout: float | None, **kw: object
) -> ProcResult:
    """:func:`run`, and a non-zero status raises one line: ``doing`` failed, and why."""
    result = run(cmd, doing=doing, timeout=timeout, **kw)  # type: ignore[arg-type]
    if result.returncode != 0:
        raise ToolkitError(redact(f"{doing} failed: {result.last_line()}"))
    return result


def spawn(
    cmd: Sequence[str | os.PathLike[str]],
    *,
    doing: str,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    stderr: IO[str] | int | None = None,
) -> subprocess.Popen[str]:
    """A long-lived worker talking over pipes (stdin/stdout, text); the caller ends it with
    :func:`stop`."""
    try:
        return subprocess.Popen(
            [os.fspath(c) for c in cmd],
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            start_new_session=True,
        )
    except OSError as exc:
        raise ToolkitError(redact(f"cannot start {doing}: {exc.strerror or exc}")) from None


def stop(proc: subprocess.Popen[str], goodbye: str | None = None, timeout: float = 30) -> None:
    """End a worker: ``goodbye`` on its stdin and a wait, else kill its process group."""
    if proc.poll() is not None:
        return
    try:
        if goodbye is not None and proc.stdin is not None:
            proc.stdin.write(goodbye)
            proc.stdin.close()
        proc.wait(timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        _kill_group(proc)
        proc.wait()


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
