"""One interpreter per release, cheaply: ``<X>/site`` holds ``ai-dynamo-runtime==X`` (the tree's
exact version; ``pip install --no-deps --target``), and ``<X>/venv-<id>`` is a pip-less venv
whose ``.pth`` puts that site first, then the shared environment's site-packages (``<id>``
names that environment, so sessions do not overwrite each other)."""

from __future__ import annotations

import hashlib
import sys
import sysconfig
from pathlib import Path

from dynpatch.errors import ToolkitError
from dynpatch.io import files, proc, pypi

RUNTIME_DIST = "ai-dynamo-runtime"
_PTH = "dynpatch-runtime.pth"


def release_python(version: str, runtimes: Path) -> Path:
    root, v = runtimes / version, sys.version_info
    site = root / "site"
    if not (site / f"ai_dynamo_runtime-{version}.dist-info" / "METADATA").is_file():
        with files.staged_dir(site) as tmp:
            pypi.pip_install_target(f"{RUNTIME_DIST}=={version}", tmp)
    shared = Path(sysconfig.get_path("purelib"))
    venv = root / f"venv-{hashlib.sha256(str(shared).encode()).hexdigest()[:10]}"
    python, pth = venv / "bin" / "python", f"lib/python{v.major}.{v.minor}/site-packages/{_PTH}"
    # Lines of a .pth run in order: the runtime's site first, then the shared site-packages
    # (addsitedir also runs that folder's own .pth files: editable installs).
    text = f"{site.resolve()}\nimport site; site.addsitedir({str(shared)!r})\n"
    if not python.exists() or not (venv / pth).is_file():
        with files.staged_dir(venv) as tmp:
            make = [sys.executable, "-m", "venv", "--without-pip", "--clear", str(tmp)]
            proc.check(make, doing=f"creating a venv at {venv}", timeout=300)
    if not (venv / pth).is_file() or (venv / pth).read_text() != text:
        files.write_atomic(venv / pth, text)
    probe = (
        "import importlib.metadata as m\n"
        f"try: print(m.version({RUNTIME_DIST!r}))\n"
        "except m.PackageNotFoundError: print('nothing')\n"
    )
    found = proc.check([str(python), "-c", probe], doing=f"running {python}", timeout=120)
    if found.stdout.strip() != version or not (site / "dynamo").is_dir():
        raise ToolkitError(
            f"{python} sees {RUNTIME_DIST} {found.stdout.strip()}, not {version} with its "
            f"dynamo package: remove {root} and rerun"
        )
    return python
