"""The gate's own proof: the patched tree with the history copy planted back (a mutant).

In a scratch copy of the patched tree's ``dynamo`` package, ``extract_from_completion_output``
copies the whole history again, ``token_ids = list(getattr(output, "token_ids", None) or
[])``, on every call, before it looks at ``new_token_ids``; the result is unused on the
delta path, so the chunks stay the same and only the cost comes back. ``--mutant``
counts this tree too and requires the gates to fail for it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from codemods.logprobs_helper import PARAM, TARGET
from dynpatch.errors import ToolkitError
from dynpatch.io import files

COPY = 'token_ids = list(getattr(output, "token_ids", None) or [])'
ANCHOR = f"    if {PARAM} is None:\n"  # the patched helper's branch on the delta
MARK = "  # planted by dynpatch: the history copy (a mutant for the bench gate)"


def plant(source: str) -> str:
    """``source`` (the patched ``logprobs.py``) with the history copy before the branch
    on ``new_token_ids``; a ToolkitError when that branch is not there exactly once."""
    found = source.count(ANCHOR)
    if found != 1:
        raise ToolkitError(
            f"{TARGET.path}: expected one line {ANCHOR.strip()!r} in the patched helper "
            f"to plant the history copy before, found {found}"
        )
    mutated = source.replace(ANCHOR, f"    {COPY}{MARK}\n{ANCHOR}")
    compile(mutated, TARGET.path, "exec")  # a mutant that does not even parse proves nothing
    return mutated


def build(patched_src: Path, dest: Path) -> Path:
    """A copy of ``patched_src/dynamo`` under ``dest`` with the copy planted; ``dest``
    (a ``components/src`` for the replay)."""
    shutil.copytree(patched_src / "dynamo", dest / "dynamo", symlinks=True)
    helper = dest / TARGET.wheel_path
    files.write_atomic(helper, plant(helper.read_text()))
    return dest
