"""The wheel verb on a synthetic release: a real wheel (made with ``wheel pack``) of
dynamo's layout and a one-patch series made with git, built offline through the real
code."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from dynpatch import series
from dynpatch import wheel as command
from dynpatch.errors import ToolkitError
from dynpatch.pin import load_pin
from dynpatch.workspace import Workspace
from tests.fixtures import snippets
from tests.fixtures.synthetic import write_pin

HELPER = "dynamo/common/backend/logprobs.py"
NEW_TEST = "dynamo/common/backend/tests/test_new.py"
FILES = {
    HELPER: snippets.HELPER,
    "dynamo/common/__init__.py": "",
    "dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER,
}
REPO = "components/src/"


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


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        [
            "git",
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


METADATA = "Metadata-Version: 2.1\nName: ai-dynamo\nVersion: 9.9.9\n\nVersion: 9.9.9 in the body\n"


def make_wheel(tmp: Path, cache: Path, metadata: str = METADATA) -> Path:
    tree = tmp / "wheel-src" / "ai_dynamo-9.9.9"
    for name, text in FILES.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    info = tree / "ai_dynamo-9.9.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(metadata)
    (info / "WHEEL").write_text("Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    cache.mkdir(parents=True)
    subprocess.run(
        [sys.executable, "-m", "wheel", "pack", "-d", str(cache), str(tree)],
        check=True,
        capture_output=True,
    )
    return cache / "ai_dynamo-9.9.9-py3-none-any.whl"


def make_series(tmp: Path, changes: dict[str, str], base: dict[str, str] = FILES) -> Path:
    """patches/: one commit over the repository layout of ``base``."""
    repo = tmp / "repo"
    subprocess.run(["rm", "-rf", str(repo)], check=True)
    repo.mkdir()
    _git(repo, "init", "-q")
    for name, text in base.items():
        (repo / REPO / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / REPO / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    for name, text in changes.items():
        (repo / REPO / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / REPO / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "perf: the change")
    patches = tmp / "patches"
    subprocess.run(["rm", "-rf", str(patches)], check=True)
    names = _git(repo, "format-patch", "-1", "-o", str(patches)).split()
    (patches / "series").write_text("".join(f"{Path(n).name}\n" for n in names))
    return patches


@pytest.fixture
def release(tmp_path: Path) -> Release:
    return make_release(tmp_path)


def make_release(tmp_path: Path, metadata: str = METADATA) -> Release:
    vendor = tmp_path / "vendor"
    wheel = make_wheel(tmp_path, vendor / "cache" / "wheels", metadata)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    pin = write_pin(vendor / "dynamo.toml", "9.9.9", wheel.name, digest)
    changes = {HELPER: snippets.HELPER_PATCHED, NEW_TEST: "def test_new():\n    pass\n"}
    patches = make_series(tmp_path, changes)
    return Release(pin, vendor, patches, tmp_path / "dist", wheel)


def _record_ok(zf: zipfile.ZipFile) -> tuple[str, list[str]]:
    record = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
    listed = []
    for path, digest, size in csv.reader(io.StringIO(zf.read(record).decode())):
        listed.append(path)
        if path == record:
            assert digest == "" and size == ""
            continue
        data = zf.read(path)
        want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert digest == f"sha256={want}" and int(size) == len(data), path
    return record, listed


def test_builds_a_consistent_patched_wheel(release: Release) -> None:
    assert release.run()
    d = series.series_digest(release.patches)[:8]
    name = f"ai_dynamo-9.9.9+dynpatch.{d}-py3-none-any.whl"
    wheel = release.dist / name
    assert sorted(p.name for p in release.dist.iterdir()) == sorted(
        [name, f"{name}.sha256", name.replace(".whl", ".provenance.json")]
    )
    with zipfile.ZipFile(wheel) as zf:
        assert zf.read(HELPER).decode() == snippets.HELPER_PATCHED
        assert zf.read(NEW_TEST).decode().startswith("def test_new")
        info = f"ai_dynamo-9.9.9+dynpatch.{d}.dist-info"
        meta = zf.read(f"{info}/METADATA").decode()
        assert f"\nVersion: 9.9.9+dynpatch.{d}\n" in meta
        assert meta.endswith("\n\nVersion: 9.9.9 in the body\n")  # the body is untouched
        record, listed = _record_ok(zf)
        assert record == f"{info}/RECORD"
        assert sorted(listed) == sorted(zf.namelist())
        assert not [n for n in zf.namelist() if "9.9.9.dist-info" in n]
    sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert (release.dist / f"{name}.sha256").read_text() == f"{sha}  {name}\n"
    prov = json.loads((release.dist / name.replace(".whl", ".provenance.json")).read_text())
    assert prov["sha256"] == sha and prov["upstream_wheel"] == release.upstream.name
    assert prov["series_sha256"] == series.series_digest(release.patches)
    assert prov["patches"] == (release.patches / "series").read_text().split()


def test_two_builds_give_identical_bytes(release: Release, tmp_path: Path) -> None:
    assert release.run(reproduce=True)
    first = {p.name: p.read_bytes() for p in release.dist.iterdir()}
    shutil.rmtree(release.dist)
    old = os.umask(0o077)  # a different umask must not change the bytes
    try:
        assert release.run()
    finally:
        os.umask(old)
    assert {p.name: p.read_bytes() for p in release.dist.iterdir()} == first


def test_rebuild_keeps_other_files_and_replaces_old_builds(release: Release) -> None:
    release.dist.mkdir()
    (release.dist / "someone-else-1.0.tar.gz").write_text("x")
    (release.dist / "ai_dynamo-9.9.9+dynpatch.00000000-py3-none-any.whl").write_text("old")
    assert release.run(reproduce=False)
    names = sorted(p.name for p in release.dist.iterdir())
    assert "someone-else-1.0.tar.gz" in names
    assert not [n for n in names if "00000000" in n]
    assert len(names) == 4


def test_a_file_where_dist_goes_is_one_line_and_kept(release: Release) -> None:
    release.dist.write_text("mine\n")
    with pytest.raises(ToolkitError, match=rf"^{release.dist} is not a folder: move it away"):
        release.run(reproduce=False)
    assert release.dist.read_text() == "mine\n"


def test_a_hunk_that_does_not_apply_is_one_line_and_dist_untouched(
    release: Release, tmp_path: Path
) -> None:
    drifted = {**FILES, HELPER: snippets.HELPER.replace("def ", "def  ", 1)}
    patches = make_series(tmp_path, {HELPER: snippets.HELPER_PATCHED}, base=drifted)
    release.patches = patches
    with pytest.raises(ToolkitError) as exc:
        release.run()
    msg = str(exc.value)
    assert "\n" not in msg
    patch_name = (patches / "series").read_text().split()[0]
    assert patch_name in msg and HELPER in msg, msg
    assert not release.dist.exists()
    assert not [p for p in (release.vendor / "scratch").glob(".wheel-*") if p.is_dir()]


def test_a_patch_outside_the_layout_is_refused(release: Release, tmp_path: Path) -> None:
    release.patches = make_series(tmp_path, {"README.md": "hi\n"})
    with pytest.raises(ToolkitError, match="outside components/src/dynamo/"):
        release.run()
    assert not release.dist.exists()


def test_metadata_without_a_version_header_is_one_line(tmp_path: Path) -> None:
    """A ``Version:`` line in the description is not the header (never renamed silently)."""
    release = make_release(tmp_path, METADATA.replace("Version: 9.9.9\n\n", "\n"))
    with pytest.raises(ToolkitError, match=r"^ai_dynamo-9\.9\.9\.dist-info/METADATA has no Ver"):
        release.run(reproduce=False)
    assert not release.dist.exists()


def test_wrong_sha256_is_refused(release: Release) -> None:
    release.upstream.write_bytes(release.upstream.read_bytes() + b"tampered")
    with pytest.raises(ToolkitError, match="not the pinned") as exc:
        release.run()
    assert "\n" not in str(exc.value)
    assert not release.dist.exists()


def test_the_version_is_the_series_digest(release: Release) -> None:
    recipe = command.recipe_of(load_pin(release.pin), release.vendor, release.patches)
    assert recipe.local == f"dynpatch.{recipe.series_sha256[:8]}"
