"""Synthetic multi-release vendors for the matrix and bump tests (offline).

Builds on conftest's ``build_wheel``: one tiny wheel per version in dynamo's layout, all in
one temporary vendor's wheel cache, and a pin file listing them (with a ``[matrix]``
table). The upstream formatter env is shared with the real vendor (a symlink), so the
tests do not build it again.
"""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass
from pathlib import Path

from codemods import gitio
from codemods.fetch import fetch
from codemods.patch import apply_series
from codemods.pin import Pin, load_pin
from tests import snippets
from tests.conftest import REAL_VENDOR, SYNTHETIC_FILES

# The 1.5+ shape (SYNTHETIC_FILES), the 1.3/1.4 shape, a <= 1.2.1 shape without the
# shared helper, and a handler whose _extract_logprobs drifted (renamed parameter).
APPLIES = SYNTHETIC_FILES
IS_NONE_GUARD = {
    **SYNTHETIC_FILES,
    "dynamo/common/backend/logprobs.py": snippets.HELPER_IS_NONE_GUARD,
}
NO_HELPER = {
    "dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER_INLINE,
    "dynamo/common/__init__.py": "",
}
DRIFTED = {
    **SYNTHETIC_FILES,
    "dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER.replace(
        "output, num_output_tokens_so_far: int", "output, cursor: int"
    ),
}


@dataclass
class Vendor:
    pin: Pin
    vendor: Path
    patches: Path  # the committed series, made against the pinned version


def wheel(cache: Path, version: str, files: dict[str, str]) -> tuple[str, str]:
    """A wheel of ``files`` for ``version``; the same files give the same bytes (fixed
    timestamps), as a re-download from PyPI would."""
    name = f"ai_dynamo-{version}-py3-none-any.whl"
    meta = {f"ai_dynamo-{version}.dist-info/METADATA": f"Name: ai-dynamo\nVersion: {version}\n"}
    with zipfile.ZipFile(cache / name, "w") as zf:
        for path, text in sorted({**files, **meta}.items()):
            zf.writestr(zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0)), text)
    return name, hashlib.sha256((cache / name).read_bytes()).hexdigest()


def pin_text(pinned: str, entries: dict[str, tuple[str, str]], matrix: list[str]) -> str:
    tables = "".join(
        f'\n# release {v}\n[releases."{v}"]\ntag = "v{v}"\nwheel = "{w}"\nsha256 = "{s}"\ntree = ""\n'
        for v, (w, s) in entries.items()
    )
    listed = ", ".join(f'"{v}"' for v in matrix)
    return f"""# a synthetic pin (tests)
[upstream]
url = "https://example.invalid/dynamo"
# the pinned release
version = "{pinned}"

[pypi]
package = "ai-dynamo"
{tables}
[layout]
wheel_prefix = "dynamo/"
repo_prefix = "components/src/dynamo/"
exclude = ["_version.py"]

[series]
author = "Test Author <test@example.invalid>"
date = "2026-01-01T00:00:00+00:00"
branch = "dynpatch/work"

[matrix]
versions = [{listed}]
newest = false
"""


def make_vendor(root: Path, releases: dict[str, dict[str, str]], pinned: str) -> Vendor:
    """A vendor with one wheel per release, a pin at ``pinned`` and its committed series."""
    vendor = root / "vendor"
    cache = vendor / "cache" / "wheels"
    cache.mkdir(parents=True)
    (vendor / "tools").symlink_to(REAL_VENDOR / "tools", target_is_directory=True)
    entries = {v: wheel(cache, v, files) for v, files in releases.items()}
    pin_path = vendor / "dynamo.toml"
    pin_path.write_text(pin_text(pinned, entries, list(releases)))
    pin = load_pin(pin_path)
    patches = root / "patches"
    apply_series(
        fetch(pin, vendor=vendor),
        author=gitio.parse_identity(pin.author),
        date=pin.date,
        branch=pin.branch,
        vendor=vendor,
        patches_dir=patches,
    )
    return Vendor(pin, vendor, patches)


def fake_runtime(site: Path, version: str) -> Path:
    """Metadata-only ai-dynamo-runtime and pytest-asyncio, so the test-upstream stage's
    interpreter probe finds them (as in test_upstream_stage)."""
    for name, v in (("ai_dynamo_runtime", version), ("pytest_asyncio", "0.0.0")):
        info = site / f"{name}-{v}.dist-info"
        info.mkdir(parents=True)
        dist = name.replace("_", "-")
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {v}\n")
    return site
