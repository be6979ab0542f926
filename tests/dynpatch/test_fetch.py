"""The three sources, cache re-verification, and the bad inputs of fetch."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.fetch import checkout_dir, fetch
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin
from tests.fixtures.synthetic import SYNTHETIC_FILES, git, write_pin


def test_pypi_source_lays_out_the_wheel_in_repository_layout(synthetic_release) -> None:
    rel = synthetic_release()
    checkout = fetch(rel.pin, vendor=rel.vendor)
    root = checkout.path
    assert (root / "components/src/dynamo/common/backend/logprobs.py").read_text() == (
        SYNTHETIC_FILES["dynamo/common/backend/logprobs.py"]
    )
    assert not list(root.rglob("_version.py")), "build-generated files stay out"
    assert not list(root.rglob("*.dist-info"))
    assert gitio.rev_parse(root, "upstream/9.9.9") == checkout.base
    message = gitio.commit_message(root, checkout.base)
    assert rel.pin.pinned.sha256 in message and "9.9.9" in message
    assert any(rel.pin.pinned.sha256 in line for line in checkout.provenance)


def test_pypi_materialisation_is_deterministic(synthetic_release, tmp_path: Path) -> None:
    rel = synthetic_release()
    first = fetch(rel.pin, vendor=rel.vendor).base
    second = fetch(rel.pin, vendor=rel.vendor, force=True).base
    assert first == second  # fixed identity and date: same commit id every time


def test_recorded_tree_is_enforced(synthetic_release) -> None:
    rel = synthetic_release()
    tree = gitio.tree_of(fetch(rel.pin, vendor=rel.vendor).path, "upstream/9.9.9")
    pin = write_pin(rel.pin.path, "9.9.9", rel.wheel.name, rel.pin.pinned.sha256, tree="0" * 40)
    with pytest.raises(ToolkitError, match=f"has tree {tree}, pin records 0000"):
        fetch(load_pin(pin), vendor=rel.vendor)


def test_wrong_sha256_fails_and_writes_nothing(synthetic_release) -> None:
    rel = synthetic_release(sha256="ab" * 32)
    with pytest.raises(
        ToolkitError, match=r"sha256 mismatch for ai_dynamo-9\.9\.9-py3-none-any\.whl"
    ):
        fetch(rel.pin, vendor=rel.vendor)
    assert not checkout_dir(rel.vendor, "pypi", "9.9.9").exists()
    assert not rel.wheel.exists(), "a wheel that failed its check is not kept in the cache"
    assert not list(rel.vendor.glob("checkouts/*")), "no half-made checkout left behind"


def test_unknown_version_is_one_clear_error(synthetic_release) -> None:
    rel = synthetic_release()
    with pytest.raises(ToolkitError, match=r"unknown version 1\.0\.0: .*known: 9\.9\.9"):
        fetch(rel.pin, version="1.0.0", vendor=rel.vendor)


def test_cached_checkout_with_local_edits_is_not_clobbered(synthetic_release) -> None:
    rel = synthetic_release()
    root = fetch(rel.pin, vendor=rel.vendor).path
    edited = root / "components/src/dynamo/common/backend/logprobs.py"
    edited.write_text("# my local experiment\n")
    with pytest.raises(ToolkitError, match=r"has local changes .*--force"):
        fetch(rel.pin, vendor=rel.vendor)
    assert edited.read_text() == "# my local experiment\n"
    fetch(rel.pin, vendor=rel.vendor, force=True)
    assert edited.read_text() == SYNTHETIC_FILES["dynamo/common/backend/logprobs.py"]


def test_cached_checkout_from_another_wheel_is_refused(synthetic_release) -> None:
    rel = synthetic_release()
    root = fetch(rel.pin, vendor=rel.vendor).path
    gitio.git_cmd(root, "tag", "-d", "upstream/9.9.9")
    with pytest.raises(ToolkitError, match=r"has no tag upstream/9\.9\.9; rerun with --force"):
        fetch(rel.pin, vendor=rel.vendor)


def _upstream_like_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "upstream"
    target = repo / "components/src/dynamo/common/backend"
    target.mkdir(parents=True)
    (target / "logprobs.py").write_text(SYNTHETIC_FILES["dynamo/common/backend/logprobs.py"])
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "release")
    git(repo, "tag", "v9.9.9")
    return repo


def test_git_source_clones_a_file_url_at_the_tag(synthetic_release, tmp_path: Path) -> None:
    rel = synthetic_release()
    repo = _upstream_like_repo(tmp_path)
    checkout = fetch(rel.pin, "git", url=f"file://{repo}", vendor=rel.vendor)
    assert checkout.base == git(repo, "rev-parse", "v9.9.9").strip()
    assert (checkout.path / "components/src/dynamo/common/backend/logprobs.py").is_file()
    assert checkout.base in checkout.provenance[0]
    again = fetch(rel.pin, "git", url=f"file://{repo}", vendor=rel.vendor)  # cached, verified
    assert again.base == checkout.base


@pytest.mark.parametrize(
    "url", ["https://github.com/ai-dynamo/dynamo", "file:///nonexistent/dynamo.git"]
)
def test_unreachable_git_url_fails_fast_with_one_line(synthetic_release, url: str) -> None:
    rel = synthetic_release()
    start = time.monotonic()
    with pytest.raises(ToolkitError) as info:
        fetch(rel.pin, "git", url=url, vendor=rel.vendor, timeout=20)
    assert time.monotonic() - start < 25
    message = str(info.value)
    assert message.startswith(f"cannot fetch v9.9.9 from {url}: ") and "\n" not in message
    assert not checkout_dir(rel.vendor, "git", "v9.9.9").exists()


def test_path_source_must_be_a_clean_dynamo_clone(synthetic_release, tmp_path: Path) -> None:
    rel = synthetic_release()
    repo = _upstream_like_repo(tmp_path)
    checkout = fetch(rel.pin, "path", path=repo, vendor=rel.vendor)
    assert checkout.base == git(repo, "rev-parse", "HEAD").strip()
    (repo / "components/src/dynamo/common/backend/logprobs.py").write_text("dirty\n")
    with pytest.raises(ToolkitError, match=r"has local changes .*commit or stash"):
        fetch(rel.pin, "path", path=repo, vendor=rel.vendor)
    with pytest.raises(ToolkitError, match="is not a git repository"):
        fetch(rel.pin, "path", path=tmp_path, vendor=rel.vendor)
    with pytest.raises(ToolkitError, match="needs --path"):
        fetch(rel.pin, "path", vendor=rel.vendor)
