"""Replacing one file all-or-nothing, with the standard library only.

The replay children run inside dynamo's environment, where the toolkit's own
dependencies are not installed, and they write their result file through this module;
the toolkit writes through :func:`dynpatch.io.files.write_atomic`, which calls it and
turns an ``OSError`` into one error line.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` via a temporary file beside it and one rename.

    The file is never seen half-written, and no temporary file is left behind. Missing
    parent folders are created; an existing file keeps its mode, a new one gets 0644.
    Raises ``OSError`` when the file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, path.stat().st_mode & 0o7777 if path.is_file() else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
