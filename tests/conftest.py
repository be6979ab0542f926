"""Fixtures: synthetic releases (a tiny wheel in dynamo's layout, its own pin file) so
the pypi source, apply and the bad-input paths run offline through the real code."""

from __future__ import annotations

import hashlib
import subprocess
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from codemods.pin import PIN_FILE, Pin, load_pin
from tests import snippets

REAL_VENDOR = PIN_FILE.parent

SYNTHETIC_FILES = {
    "dynamo/common/backend/logprobs.py": snippets.HELPER,
    "dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER,
    "dynamo/trtllm/_version.py": "__version__ = '9.9.9'\n",
    "dynamo/common/__init__.py": "",
}


@dataclass
class SyntheticRelease:
    pin: Pin
    vendor: Path
    wheel: Path


def write_pin(path: Path, version: str, wheel: str, sha256: str, tree: str = "") -> Path:
    path.write_text(
        f"""
[upstream]
url = "https://example.invalid/dynamo"
version = "{version}"
[pypi]
package = "ai-dynamo"
[releases."{version}"]
tag = "v{version}"
wheel = "{wheel}"
sha256 = "{sha256}"
tree = "{tree}"
[layout]
wheel_prefix = "dynamo/"
repo_prefix = "components/src/dynamo/"
exclude = ["_version.py"]
[series]
author = "Test Author <test@example.invalid>"
date = "2026-01-01T00:00:00+00:00"
branch = "dynpatch/work"
"""
    )
    return path


def build_wheel(path: Path, files: dict[str, str]) -> str:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in sorted(files.items()):
            zf.writestr(name, text)
        info = "ai_dynamo-9.9.9.dist-info"
        zf.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: ai-dynamo\nVersion: 9.9.9\n")
        zf.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def synthetic_release(tmp_path: Path) -> Callable[..., SyntheticRelease]:
    """Make a release 9.9.9 whose wheel sits in a temp vendor's wheel cache."""

    def make(files: dict[str, str] | None = None, sha256: str | None = None) -> SyntheticRelease:
        vendor = tmp_path / "vendor"
        cache = vendor / "cache" / "wheels"
        cache.mkdir(parents=True, exist_ok=True)
        wheel = cache / "ai_dynamo-9.9.9-py3-none-any.whl"
        digest = build_wheel(wheel, files if files is not None else SYNTHETIC_FILES)
        pin_path = write_pin(vendor / "dynamo.toml", "9.9.9", wheel.name, sha256 or digest)
        return SyntheticRelease(load_pin(pin_path), vendor, wheel)

    return make


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", *args],
        cwd=repo, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
