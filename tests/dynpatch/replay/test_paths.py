"""Where a module must come from: the one path-inside check of both sides."""

from __future__ import annotations

from pathlib import Path

from dynpatch.replay import paths


def test_a_path_under_the_root_is_inside(tmp_path: Path) -> None:
    (tmp_path / "src" / "dynamo").mkdir(parents=True)
    module = tmp_path / "src" / "dynamo" / "x.py"
    assert paths.inside(module, tmp_path / "src")
    assert paths.inside(str(module), tmp_path / "src")
    assert paths.inside(tmp_path / "src", tmp_path / "src")


def test_a_path_elsewhere_or_escaping_with_dotdot_is_not(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert not paths.inside(tmp_path / "other" / "x.py", tmp_path / "src")
    assert not paths.inside(tmp_path / "src" / ".." / "other.py", tmp_path / "src")


def test_no_path_is_never_inside(tmp_path: Path) -> None:
    assert not paths.inside(None, tmp_path)
    assert not paths.inside("", tmp_path)


def test_links_are_judged_by_where_they_lead(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "m.py").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").symlink_to(tmp_path / "real" / "m.py")
    assert not paths.inside(tmp_path / "src" / "m.py", tmp_path / "src")
    assert paths.inside(tmp_path / "src" / "m.py", tmp_path / "real")


def test_the_tree_modules_are_the_ones_the_change_touches() -> None:
    assert "dynamo.common.backend.logprobs" in paths.TREE_MODULES
    assert all(m.startswith("dynamo.") for m in paths.TREE_MODULES)
