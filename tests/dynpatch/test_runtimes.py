"""The per-release interpreter: the shared environment with that release's runtime first."""

from __future__ import annotations

import subprocess
from pathlib import Path

from dynpatch import runtimes as envs
from dynpatch.io import pypi
from tests.fixtures.releases import fake_runtime


def test_runtime_env_puts_the_release_runtime_first(tmp_path: Path, monkeypatch) -> None:
    """The per-release interpreter sees its own runtime's metadata and this environment's
    packages (pip is replaced by a fake that lays out a runtime's dist-info)."""

    def fake_install(requirement: str, target: Path, timeout: float = 1200) -> None:
        version = requirement.split("==")[1]
        fake_runtime(target, version)
        (target / "dynamo").mkdir()
        (target / "dynamo" / "marker_runtime.py").write_text(f"VERSION = {version!r}\n")

    monkeypatch.setattr(pypi, "pip_install_target", fake_install)
    env = envs.runtime_env("9.9.9", tmp_path / "runtimes")
    assert env.python.is_file()
    code = (
        "import importlib.metadata as m, dynamo.marker_runtime as r, libcst;"
        "print(m.version('ai-dynamo-runtime'), r.VERSION)"
    )
    shown = subprocess.run([str(env.python), "-c", code], capture_output=True, text=True)
    assert shown.stdout.split() == ["9.9.9", "9.9.9"], shown.stderr
    again = envs.runtime_env("9.9.9", tmp_path / "runtimes")  # reused, not rebuilt
    assert again == env
