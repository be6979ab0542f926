"""valgrind as the counts use it: found, its version, a child's command line, its dumps read."""

from __future__ import annotations

import platform
import shutil
from collections.abc import Sequence
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import proc

TOOL = "callgrind"
OPTIONS = (f"--tool={TOOL}", "--instr-atstart=no", "--collect-atstart=no")
OUT_NAME = "callgrind.out"
_TRIGGER = "desc: Trigger: Client Request: "


def find() -> str:
    """The valgrind executable on ``PATH``; a ToolkitError saying how to install it."""
    if (found := shutil.which("valgrind")) is None:
        raise ToolkitError("valgrind not found: apt-get install valgrind")
    return found


def version(valgrind: str) -> str:
    """What ``valgrind --version`` says (``valgrind-3.19.0``)."""
    done = proc.check([valgrind, "--version"], doing="valgrind --version", timeout=60)
    return done.stdout.strip()


def fixed_layout() -> list[str]:
    """``setarch <machine> -R`` where allowed: two runs then agree to 0.02 %, not 0.1 %."""
    setarch = shutil.which("setarch")
    if setarch is None:
        return []
    prefix = [setarch, platform.machine(), "-R"]
    probe = proc.run([*prefix, "true"], doing="setarch -R", timeout=60)
    return prefix if probe.returncode == 0 else []


def command(
    valgrind: str, folder: Path, argv: Sequence[str], prefix: Sequence[str] = ()
) -> list[str]:
    """``argv`` under callgrind (behind ``prefix``), its and its forks' dumps in ``folder``."""
    return [*prefix, valgrind, *OPTIONS, f"--callgrind-out-file={folder / OUT_NAME}.%p", *argv]


def parse_dump(text: str) -> tuple[int, str, int] | None:
    """A client-request dump's process id, label and instructions (None: another kind)."""
    pid = label = total = None
    for line in text.splitlines():
        if line.startswith("pid: "):
            pid = int(line[5:])
        elif line.startswith(_TRIGGER):
            label = line[len(_TRIGGER) :].strip()
        elif line.startswith("totals:"):
            total = int(line.split(":", 1)[1].split()[0])
    if label is None:
        return None
    if total is None or pid is None:
        raise ToolkitError(f"callgrind dump {label!r} has no {'totals' if pid else 'pid'} line")
    return pid, label, total


def read_parts(folder: Path) -> dict[int, dict[str, int]]:
    """Every labelled part dumped into ``folder``: process id -> label -> instructions."""
    parts: dict[int, dict[str, int]] = {}
    for path in sorted(folder.glob(f"{OUT_NAME}.*")):
        found = parse_dump(path.read_text(errors="replace"))
        if found is None:
            continue
        pid, label, total = found
        if label in parts.setdefault(pid, {}):
            raise ToolkitError(
                f"{folder}: two callgrind dumps of process {pid} are labelled {label!r}"
            )
        parts[pid][label] = total
    return parts
