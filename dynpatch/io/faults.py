"""Test-only: ``DYNPATCH_FAULT_AT=STEP`` makes the process SIGKILL itself at ``STEP`` (no
cleanup runs, as with ``kill -9``), so the fault suite can prove every write all-or-nothing.
"""

from __future__ import annotations

import os
import signal

STEPS = (
    "download.partial",  # wheel half downloaded
    "fetch.staged",  # checkout built, not yet swapped in
    "swap.aside",  # the old folder moved aside, the new one not yet in
    "apply.objects",  # the series commit written as objects, no ref moved yet
    "patches.staged",  # new patches/ built, not yet swapped in
    "bump.patches",  # bump: new patches/ in, the pin not yet written
    "pr.placed",  # the PR branch placed, its description not yet written
)


def checkpoint(step: str) -> None:
    """Die here with SIGKILL if ``$DYNPATCH_FAULT_AT`` names ``step``."""
    assert step in STEPS, step
    if os.environ.get("DYNPATCH_FAULT_AT") == step:
        os.kill(os.getpid(), signal.SIGKILL)
