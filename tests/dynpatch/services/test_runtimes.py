"""The per-release interpreter: the shared environment with that release's runtime first."""

from __future__ import annotations

import subprocess
from pathlib import Path

from dynpatch.io import pypi
from dynpatch.services import runtimes as envs
from tests.fixtures.releases import fake_runtime


def test_release_python_puts_the_release_runtime_first(tmp_path: Path, monkeypatch) -> None:
    """The per-release interpreter sees its own runtime's metadata and this environment's
    packages (pip is replaced by a fake that lays out a runtime's dist-info)."""
    installs = []

    def fake_install(requirement: str, target: Path, timeout: float = 1200) -> None:
        installs.append(requirement)
        version = requirement.split("==")[1]
        fake_runtime(target, version)
        (target / "dynamo").mkdir()
        (target / "dynamo" / "marker_runtime.py").write_text(f"VERSION = {version!r}\n")

    monkeypatch.setattr(pypi, "pip_install_target", fake_install)
    python = envs.release_python("9.9.9", tmp_path / "runtimes")
    code = (
        "import importlib.metadata as m, dynamo.marker_runtime as r, libcst;"
        "print(m.version('ai-dynamo-runtime'), r.VERSION)"
    )
    shown = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    assert shown.stdout.split() == ["9.9.9", "9.9.9"], shown.stderr
    venv = python.parent.parent / "pyvenv.cfg"
    made = venv.stat().st_mtime_ns
    assert envs.release_python("9.9.9", tmp_path / "runtimes") == python
    assert installs == ["ai-dynamo-runtime==9.9.9"] and venv.stat().st_mtime_ns == made  # reused
