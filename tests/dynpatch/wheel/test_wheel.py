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
from dataclasses import dataclass
from pathlib import Path

import pytest

from dynpatch import series
from dynpatch import wheel as command
from dynpatch.errors import ToolkitError
from dynpatch.workspace import Workspace
from tests.fixtures import snippets
from tests.fixtures.synthetic import git, write_pin

HELPER = "dynamo/common/backend/logprobs.py"
NEW_TEST = "dynamo/common/backend/tests/test_new.py"
FILES = {
    HELPER: snippets.HELPER,
    "dynamo/common/__init__.py": "",
    "dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER,
}


@dataclass
class Release:
    pin: Path
    vendor: Path
    patches: Path
    dist: Path
    upstream: Path

    def run(self, **kw: object) -> bool:
        """The wheel verb in this release's workspace; True when it passed."""
        ws = Workspace(self.vendor.parent)
        return command.run(command.WheelOptions(**kw), ws).ok  # type: ignore[arg-type]


METADATA = "Metadata-Version: 2.1\nName: ai-dynamo\nVersion: 9.9.9\n\nVersion: 9.9.9 in the body\n"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def make_wheel(tmp: Path, cache: Path, metadata: str = METADATA) -> Path:
    tree = tmp / "wheel-src" / "ai_dynamo-9.9.9"
    info = "ai_dynamo-9.9.9.dist-info"
    wheel = "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    _write(tree, {**FILES, f"{info}/METADATA": metadata, f"{info}/WHEEL": wheel})
    cache.mkdir(parents=True)
    cmd = [sys.executable, "-m", "wheel", "pack", "-d", str(cache), str(tree)]
    subprocess.run(cmd, check=True, capture_output=True)
    return cache / "ai_dynamo-9.9.9-py3-none-any.whl"


def make_series(tmp: Path, changes: dict[str, str], base: dict[str, str] = FILES) -> Path:
    """patches/: one commit over the repository layout of ``base``."""
    repo, patches = tmp / "repo", tmp / "patches"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.rmtree(patches, ignore_errors=True)
    repo.mkdir()
    git(repo, "init", "-q")
    for message, files in (("base", base), ("perf: the change", changes)):
        _write(repo / "components/src", files)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", message)
    names = git(repo, "format-patch", "-1", "-o", str(patches)).split()
    (patches / "series").write_text("".join(f"{Path(n).name}\n" for n in names))
    return patches


@pytest.fixture
def release(tmp_path: Path) -> Release:
    return make_release(tmp_path)


def make_release(tmp_path: Path, metadata: str = METADATA) -> Release:
    vendor = tmp_path / "vendor"
    wheel = make_wheel(tmp_path, tmp_path / ".cache" / "wheels", metadata)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    pin = write_pin(tmp_path / "dynamo.toml", "9.9.9", wheel.name, digest)
    changes = {HELPER: snippets.HELPER_PATCHED, NEW_TEST: "def test_new():\n    pass\n"}
    patches = make_series(tmp_path, changes)
    return Release(pin, vendor, patches, tmp_path / "dist", wheel)


def test_builds_a_consistent_patched_wheel_twice_with_identical_bytes(
    release: Release, tmp_path: Path
) -> None:
    release.dist.mkdir()
    (release.dist / "someone-else-1.0.tar.gz").write_text("x")
    (release.dist / "ai_dynamo-9.9.9+dynpatch.00000000-py3-none-any.whl").write_text("old")
    assert release.run(reproduce=True)
    d = series.series_digest(release.patches)[:8]
    name = f"ai_dynamo-9.9.9+dynpatch.{d}-py3-none-any.whl"
    wheel = release.dist / name
    made = [name, f"{name}.sha256", name.replace(".whl", ".provenance.json")]
    # other files kept, earlier builds replaced
    assert sorted(p.name for p in release.dist.iterdir()) == sorted(
        [*made, "someone-else-1.0.tar.gz"]
    )
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
    assert (release.dist / f"{name}.sha256").read_text() == f"{sha}  {name}\n"
    prov = json.loads((release.dist / made[2]).read_text())
    assert prov["sha256"] == sha and prov["upstream_wheel"] == release.upstream.name
    assert prov["series_sha256"] == series.series_digest(release.patches)
    assert prov["patches"] == (release.patches / "series").read_text().split()

    first = {n: (release.dist / n).read_bytes() for n in made}
    shutil.rmtree(release.dist)
    old = os.umask(0o077)  # a different umask must not change the bytes
    try:
        assert release.run(reproduce=False)
    finally:
        os.umask(old)
    assert {p.name: p.read_bytes() for p in release.dist.iterdir()} == first


def _drifted(r: Release, tmp: Path) -> None:
    drifted = {**FILES, HELPER: snippets.HELPER.replace("def ", "def  ", 1)}
    r.patches = make_series(tmp, {HELPER: snippets.HELPER_PATCHED}, base=drifted)


def _no_version_header(r: Release, tmp: Path) -> None:
    """A ``Version:`` line in the description is not the header (never renamed silently)."""
    (tmp / "other").mkdir()
    vars(r).update(vars(make_release(tmp / "other", METADATA.replace("Version: 9.9.9\n\n", "\n"))))


@pytest.mark.parametrize(
    ("spoil", "match"),
    [
        (lambda r, tmp: r.dist.write_text("mine\n"), r"dist is not a folder: move it away"),
        (_drifted, rf"^0001-\S+\.patch does not apply to the wheel: .*{HELPER}"),
        (
            lambda r, tmp: setattr(r, "patches", make_series(tmp, {"README.md": "hi\n"})),
            "outside components/src/dynamo/",
        ),
        (_no_version_header, r"^ai_dynamo-9\.9\.9\.dist-info/METADATA has no Version: header"),
        (lambda r, tmp: r.upstream.write_bytes(r.upstream.read_bytes() + b"x"), "not the pinned"),
    ],
)
def test_bad_input_is_one_line_and_dist_untouched(
    release: Release, tmp_path: Path, spoil: Callable[[Release, Path], None], match: str
) -> None:
    spoil(release, tmp_path)
    before = release.dist.read_text() if release.dist.exists() else None
    with pytest.raises(ToolkitError, match=match) as exc:
        release.run()
    assert "\n" not in str(exc.value)
    assert (release.dist.read_text() if release.dist.exists() else None) == before
    assert not [p for p in Workspace(release.vendor.parent).scratch.glob(".wheel-*") if p.is_dir()]
