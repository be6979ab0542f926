"""A test-only hook that stops the pipeline at a named step, as a crash or a kill would.

``DYNPATCH_FAULT_AT=STEP`` makes the process kill itself with ``SIGKILL`` when it reaches
``STEP`` (no cleanup runs, as with ``kill -9``). The fault suite uses it to prove that
every write is all-or-nothing and that the next run cleans up after a dead one. Unset
(always, outside the tests) it does nothing.
"""

from __future__ import annotations

import os
import signal

FAULT_ENV = "DYNPATCH_FAULT_AT"
STEPS = (
    "download.partial",  # wheel half downloaded
    "fetch.staged",  # checkout built, not yet swapped in
    "swap.exchanged",  # new folder swapped in atomically, the old one not yet removed
    "swap.aside",  # two-rename swap: the old folder moved aside, the new one not yet in
    "apply.objects",  # the series commit written as objects, no ref moved yet
    "patches.staged",  # new patches/ built, not yet swapped in
    "bump.patches",  # bump: new patches/ in, the pin not yet written
    "pr.placed",  # the PR branch placed, its description not yet written
)


def checkpoint(step: str) -> None:
    """Die here with SIGKILL if ``$DYNPATCH_FAULT_AT`` names ``step``."""
    assert step in STEPS, step
    if os.environ.get(FAULT_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)
