"""One interpreter per release, cheaply: the shared environment plus that release's runtime.

dynamo's tests and the replay need ``ai-dynamo-runtime`` at the tree's exact version, and
everything else (pytest, torch, transformers, ...) at any version. A full virtual
environment per release would install torch and transformers again for each. Instead:

* ``.cache/runtimes/<X>/site``: ``pip install --no-deps --target`` of
  ``ai-dynamo-runtime==X`` (once per release; its dist-info is there, so
  ``importlib.metadata`` reports X);
* ``.cache/runtimes/<X>/venv-<id>``: a pip-less venv whose ``.pth`` file puts that site
  first, then adds this (shared) environment's site-packages with ``site.addsitedir``
  (so the shared environment's own ``.pth`` files still run). ``<id>`` names the shared
  environment, so the matrix and bump sessions' environments do not overwrite each other.

The stages take the venv's interpreter as their ``python`` option; its children (pytest,
the replay) then see release X's runtime and the shared tools.
"""

from __future__ import annotations

import hashlib
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc, pypi

RUNTIME_DIST = "ai-dynamo-runtime"
_PTH = "dynpatch-runtime.pth"


@dataclass(frozen=True)
class RuntimeEnv:
    version: str
    python: Path  # the interpreter handed to the stages as their python option
    site: Path  # where ai-dynamo-runtime==version is installed


def runtime_env(version: str, runtimes: Path) -> RuntimeEnv:
    """Build (or reuse) the interpreter for release ``version``."""
    root = runtimes / version
    site = root / "site"
    if not _has_runtime(site, version):
        with files.staged_dir(site) as tmp:
            pypi.pip_install_target(f"{RUNTIME_DIST}=={version}", tmp)
            if not _has_runtime(tmp, version):
                raise ToolkitError(f"pip installed no {RUNTIME_DIST} {version} dist-info")
    shared = Path(sysconfig.get_path("purelib"))
    venv = root / f"venv-{hashlib.sha256(str(shared).encode()).hexdigest()[:10]}"
    python = venv / "bin" / "python"
    pth = _pth_text(site, shared)
    venv_site = _venv_site(venv)
    if not python.exists() or not (venv_site / _PTH).is_file():
        with files.staged_dir(venv) as tmp:
            _make_venv(tmp)
        venv_site = _venv_site(venv)
    if not (venv_site / _PTH).is_file() or (venv_site / _PTH).read_text() != pth:
        files.write_atomic(venv_site / _PTH, pth)
    found = _runtime_seen_by(python)
    if found != version:
        raise ToolkitError(
            f"{python} sees {RUNTIME_DIST} {found or 'nothing'}, not {version}: "
            f"remove {root} and rerun"
        )
    return RuntimeEnv(version, python, site)


def _has_runtime(site: Path, version: str) -> bool:
    name = RUNTIME_DIST.replace("-", "_")
    return (site / f"{name}-{version}.dist-info" / "METADATA").is_file() and (
        site / "dynamo"
    ).is_dir()


def _pth_text(site: Path, shared: Path) -> str:
    # Lines of a .pth run in order: the runtime's site is appended first, then the shared
    # site-packages (addsitedir also processes its .pth files: editable installs).
    return f"{site.resolve()}\nimport site; site.addsitedir({str(shared)!r})\n"


def _venv_site(venv: Path) -> Path:
    v = sys.version_info
    return venv / "lib" / f"python{v.major}.{v.minor}" / "site-packages"


def _make_venv(dest: Path) -> None:
    """A pip-less venv (a few files and symlinks: fast) at ``dest``."""
    proc.check(
        [sys.executable, "-m", "venv", "--without-pip", "--clear", str(dest)],
        doing=f"creating a venv at {dest}",
        timeout=300,
    )


def _runtime_seen_by(python: Path) -> str | None:
    """The ai-dynamo-runtime version ``python`` reports (what the stages will check)."""
    code = (
        "import importlib.metadata as m\n"
        f"try: print(m.version({RUNTIME_DIST!r}))\n"
        "except m.PackageNotFoundError: print('')\n"
    )
    result = proc.check([str(python), "-c", code], doing=f"running {python}", timeout=120)
    return result.stdout.strip() or None
