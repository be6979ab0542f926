"""Where the replay's modules must come from: the tree under test, or the stand-in.

Standard library only: the child reports the modules it imported, the parent checks
them (:func:`dynpatch.replay.runner.check_origins`), and both use :func:`inside`.
"""

from __future__ import annotations

from pathlib import Path

# Modules whose origin must be the tree under test.
TREE_MODULES = (
    "dynamo.common.backend.logprobs",
    "dynamo.trtllm.request_handlers.handler_base",
    "dynamo.trtllm.request_handlers.aggregated_handler",
)


def inside(path: str | Path | None, root: Path) -> bool:
    """``path`` lies under ``root`` once both are resolved (False for no path)."""
    if not path:
        return False
    try:
        Path(path).resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True
