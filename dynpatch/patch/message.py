"""The series commit message: the codemods' text and, when the committed reference counts
measured this very code, one paragraph saying what was measured and how.

The figure comes only from ``docs/bench/instructions.json`` (``nox -s bench --
--instructions --record``): instruction counts under valgrind, which a busy machine cannot
bend, committed, so every clone writes the same message. Time-based runs, quick or full,
are never quoted here (they stay in the PR description, labelled as what they are).
"""

from __future__ import annotations

import textwrap
from typing import Any

from codemods.series import COMMIT_MESSAGE


def _m(instructions: float) -> str:
    return f"{instructions / 1e6:.1f} M"


def measured(reference: dict[str, Any], version: str) -> str:
    """The commit message's paragraph on what was measured, wrapped at 72 columns. The
    release named is the one measured (``release`` in the record), which may differ from
    ``version`` when two releases take byte-identical diffs."""
    version = str(reference.get("release") or version)
    how = reference["how"]
    ref, long = reference["requests"]["256x4"], reference["requests"]["4096x1"]
    text = (
        f"Measured with {how['valgrind']} {how['tool']}: "
        f"{_m(ref['baseline']['instructions'])} -> {_m(ref['patched']['instructions'])} "
        f"instructions ({ref['patched/baseline']:.2f}x) per request of 256 tokens x 4 "
        f"interleaved choices, logprobs on (4096 x 1: {long['patched/baseline']:.2f}x), "
        f"through ai-dynamo {version}'s AggregatedHandler.generate replayed on CPU "
        "against an engine double."
    )
    return textwrap.fill(text, 72, break_on_hyphens=False, break_long_words=False)


def commit_message(reference: dict[str, Any] | None, version: str) -> str:
    """``COMMIT_MESSAGE``, with the measured paragraph when ``reference`` is given."""
    if reference is None:
        return COMMIT_MESSAGE
    return f"{COMMIT_MESSAGE.rstrip()}\n\n{measured(reference, version)}\n"
