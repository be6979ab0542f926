"""The package index's list of a package's wheels, for ``matrix --all``.

One request to the index's JSON simple API (PEP 691): ``$PIP_INDEX_URL`` when set, else
PyPI. pip's own listing (``pip index versions``) cannot tell a version that has a wheel
from one whose only file is a source archive (dynamo's dev sdists are stubs that point at
another index), and the matrix needs the wheels. Nothing is downloaded here: the
checkouts fetch each wheel through :mod:`dynpatch.io.pypi` and hold it to the sha256
listed here (or pinned).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

from dynpatch.errors import ToolkitError
from dynpatch.io import proc

SIMPLE_INDEX = "https://pypi.org/simple/"
_SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


def wheels(package: str, timeout: float = 60) -> dict[str, str]:
    """Every wheel of ``package`` the index lists and has not yanked: file name -> sha256
    (lower case). Any fault is one :class:`ToolkitError` line, without URL user-info."""
    index = os.environ.get("PIP_INDEX_URL") or SIMPLE_INDEX
    url = f"{index.rstrip('/')}/{package}/"
    failed = proc.redact(f"cannot list the files of {package} on {index}")
    request = urllib.request.Request(url, headers={"Accept": _SIMPLE_JSON})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.load(response)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ToolkitError(f"{failed}: the answer is not the index's JSON listing") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise ToolkitError(proc.redact(f"{failed}: {reason}")) from None
    try:
        return {
            f["filename"]: str(f["hashes"]["sha256"]).lower()
            for f in data["files"]
            if f["filename"].endswith(".whl") and not f.get("yanked")
        }
    except (KeyError, TypeError, AttributeError) as exc:
        raise ToolkitError(f"{failed}: the listing lacks {exc}") from None
