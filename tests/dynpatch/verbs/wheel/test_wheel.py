"""The wheel verb on a synthetic release: a real wheel (made with ``wheel pack``) of
dynamo's layout and a one-patch series made with git, built offline through the real
code."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from dynpatch import series
from dynpatch.designs import DESIGNS
from dynpatch.errors import ToolkitError
from dynpatch.verbs import wheel as command
from dynpatch.workspace import Workspace
from tests.fixtures import snippets
from tests.fixtures.synthetic import git, write_files, write_pin

HELPER = "dynamo/common/backend/logprobs.py"
NEW_TEST = "dynamo/common/backend/tests/test_new.py"
FILES = {
    HELPER: snippets.HELPER,
    "dynamo/common/__init__.py": "",
    "dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER,
}
METADATA = "Metadata-Version: 2.1\nName: ai-dynamo\nVersion: 9.9.9\n\nVersion: 9.9.9 in the body\n"
UPSTREAM = "ai_dynamo-9.9.9-py3-none-any.whl"


def make_series(ws: Workspace, changes: dict[str, str], base: dict[str, str] = FILES) -> None:
    """patches/: one commit over the repository layout of ``base``."""
    repo = ws.root / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.rmtree(ws.patches, ignore_errors=True)
    repo.mkdir()
    git(repo, "init", "-q")
    for message, files in (("base", base), ("perf: the change", changes)):
        write_files(repo / "components/src", files)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", message)
    names = git(repo, "format-patch", "-1", "-o", str(ws.patches)).split()
    series.write(ws.patches, DESIGNS["delta"], [Path(n).name for n in names])


def make_release(root: Path, metadata: str = METADATA) -> Workspace:
    """A workspace at ``root``: the pinned wheel 9.9.9 in the cache and a series for it."""
    ws, tree = Workspace(root), root / "wheel-src" / "ai_dynamo-9.9.9"
    info = "ai_dynamo-9.9.9.dist-info"
    wheel = "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    write_files(tree, {**FILES, f"{info}/METADATA": metadata, f"{info}/WHEEL": wheel})
    ws.wheels.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "wheel", "pack", "-d", str(ws.wheels), str(tree)]
    subprocess.run(cmd, check=True, capture_output=True)
    digest = hashlib.sha256((ws.wheels / UPSTREAM).read_bytes()).hexdigest()
    write_pin(ws.pin, "9.9.9", UPSTREAM, digest)
    make_series(ws, {HELPER: snippets.HELPER_PATCHED, NEW_TEST: "def test_new():\n    pass\n"})
    return ws


def run(ws: Workspace, **options: object) -> bool:
    """The wheel verb in ``ws``; True when it passed."""
    return command.run(command.WheelOptions(**options), ws).ok  # type: ignore[arg-type]


def test_builds_a_consistent_patched_wheel_twice_with_identical_bytes(tmp_path: Path) -> None:
    ws = make_release(tmp_path)
    ws.dist.mkdir()
    (ws.dist / "someone-else-1.0.tar.gz").write_text("x")
    (ws.dist / "ai_dynamo-9.9.9+dynpatch.00000000-py3-none-any.whl").write_text("old")
    assert run(ws, reproduce=True)
    d = series.series_digest(ws.patches)[:8]
    name = f"ai_dynamo-9.9.9+dynpatch.{d}-py3-none-any.whl"
    wheel = ws.dist / name
    made = [name, f"{name}.sha256", name.replace(".whl", ".provenance.json")]
    # other files kept, earlier builds replaced
    assert sorted(p.name for p in ws.dist.iterdir()) == sorted([*made, "someone-else-1.0.tar.gz"])
    with zipfile.ZipFile(wheel) as zf:
        assert zf.read(HELPER).decode() == snippets.HELPER_PATCHED
        assert zf.read(NEW_TEST).decode().startswith("def test_new")
        info = f"ai_dynamo-9.9.9+dynpatch.{d}.dist-info"
        meta = zf.read(f"{info}/METADATA").decode()
        assert f"\nVersion: 9.9.9+dynpatch.{d}\n" in meta
        assert meta.endswith("\n\nVersion: 9.9.9 in the body\n")  # the body is untouched
        assert f"{info}/RECORD" in zf.namelist()
        assert not [n for n in zf.namelist() if "9.9.9.dist-info" in n]
    sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert (ws.dist / f"{name}.sha256").read_text() == f"{sha}  {name}\n"
    prov = json.loads((ws.dist / made[2]).read_text())
    assert prov["sha256"] == sha and prov["upstream_wheel"] == UPSTREAM
    assert prov["series_sha256"] == series.series_digest(ws.patches)
    assert prov["patches"] == series.names(ws.patches)

    first = {n: (ws.dist / n).read_bytes() for n in made}
    shutil.rmtree(ws.dist)
    old = os.umask(0o077)  # a different umask must not change the bytes
    try:
        assert run(ws, reproduce=False)
    finally:
        os.umask(old)
    assert {p.name: p.read_bytes() for p in ws.dist.iterdir()} == first


def _no_version_header(ws: Workspace) -> None:
    """A ``Version:`` line in the description is not the header (never renamed silently)."""
    make_release(ws.root, METADATA.replace("Version: 9.9.9\n\n", "\n"))


def _drifted(ws: Workspace) -> None:
    drifted = {**FILES, HELPER: snippets.HELPER.replace("def ", "def  ", 1)}
    make_series(ws, {HELPER: snippets.HELPER_PATCHED}, base=drifted)


@pytest.mark.parametrize(
    ("spoil", "match"),
    [
        (lambda ws: ws.dist.write_text("mine\n"), r"dist is not a folder: move it away"),
        (_drifted, rf"^0001-\S+\.patch does not apply to the wheel: .*{HELPER}"),
        (lambda ws: make_series(ws, {"README.md": "hi\n"}), "outside components/src/dynamo/"),
        (_no_version_header, r"^ai_dynamo-9\.9\.9\.dist-info/METADATA has no Version: header"),
        (lambda ws: (ws.wheels / UPSTREAM).write_bytes(b"x"), "not the pinned"),
    ],
)
def test_bad_input_is_one_line_and_dist_untouched(
    tmp_path: Path, spoil: Callable[[Workspace], object], match: str
) -> None:
    ws = make_release(tmp_path)
    spoil(ws)
    before = ws.dist.read_text() if ws.dist.exists() else None
    with pytest.raises(ToolkitError, match=match) as exc:
        run(ws)
    assert "\n" not in str(exc.value)
    assert (ws.dist.read_text() if ws.dist.exists() else None) == before
    assert not [p for p in ws.scratch.glob(".wheel-*") if p.is_dir()]
