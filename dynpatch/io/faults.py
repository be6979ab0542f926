"""Test-only: ``DYNPATCH_FAULT_AT=STEP`` makes the process SIGKILL itself (no cleanup, as with
``kill -9``) at the :func:`checkpoint` ``STEP``, so tests prove every write all-or-nothing."""

from __future__ import annotations

import os
import signal


def checkpoint(step: str) -> None:
    if os.environ.get("DYNPATCH_FAULT_AT") == step:
        os.kill(os.getpid(), signal.SIGKILL)
