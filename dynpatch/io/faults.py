"""Test-only: ``DYNPATCH_FAULT_AT=STEP`` makes the process SIGKILL itself at ``STEP`` (no
cleanup runs, as with ``kill -9``), so the fault suite can prove every write all-or-nothing.
The steps are the names passed to :func:`checkpoint` where the toolkit writes."""

from __future__ import annotations

import os
import signal


def checkpoint(step: str) -> None:
    if os.environ.get("DYNPATCH_FAULT_AT") == step:
        os.kill(os.getpid(), signal.SIGKILL)
