"""dynpatch.io.files: atomic writes, folders swapped whole, owned scratch folders, locks."""

from __future__ import annotations

import gc
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.io import files


def test_write_atomic_keeps_the_mode_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o600)
    files.write_atomic(target, "new")
    assert target.read_text() == "new" and target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_an_os_error_is_one_line_naming_the_path(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ToolkitError, match=r"^cannot write .*file/x: File exists$"):
        files.write_atomic(blocker / "x", "text")
    exc = files.os_error(PermissionError(13, "Permission denied", "/x/y"), "cannot write")
    assert str(exc) == "cannot write (/x/y): Permission denied"
    full = [("a", f"/out/{i}", f"[Errno 28] No space left on device: '/out/{i}'") for i in range(9)]
    exc = files.os_error(shutil.Error(full))  # a copy's failures: the first, and how many
    assert str(exc) == "/out/0: No space left on device (+8 more)"


def test_staged_dir_replaces_whole_or_not_at_all_and_carries_what_it_keeps(
    tmp_path: Path,
) -> None:
    final = tmp_path / "patches"
    final.mkdir()
    (final / "0001.patch").write_text("old")
    (final / "NOTES.md").write_text("mine")
    with pytest.raises(RuntimeError), files.staged_dir(final) as tmp:
        (tmp / "half").write_text("x")
        raise RuntimeError("boom")
    assert sorted(p.name for p in final.iterdir()) == ["0001.patch", "NOTES.md"]
    with files.staged_dir(final, keep=frozenset({"NOTES.md"})) as tmp:
        (tmp / "0002.patch").write_text("new")
    assert sorted(p.name for p in final.iterdir()) == ["0002.patch", "NOTES.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["patches"]


def test_staged_dir_refuses_a_link_in_the_way_and_keeps_it(tmp_path: Path) -> None:
    final = tmp_path / "dist"  # a plain file: test_patches_where_a_file_stands_is_one_line
    final.symlink_to(tmp_path / "nowhere")
    refused = pytest.raises(ToolkitError, match=rf"^{final} is not a folder: move it away")
    with refused, files.staged_dir(final) as tmp:
        (tmp / "x").write_text("x")
    assert final.is_symlink() and [p.name for p in tmp_path.iterdir()] == ["dist"]


def test_together_puts_both_back_or_leaves_its_journal_for_the_next_run(tmp_path: Path) -> None:
    pin, folder = tmp_path / "pin.toml", tmp_path / "patches"
    pin.write_text("old")
    folder.mkdir()
    (folder / "series").write_text("old")
    with pytest.raises(RuntimeError), files.together(pin, folder):
        (folder / "series").write_text("new")
        pin.write_text("new")
        raise RuntimeError("boom")
    assert pin.read_text() == "old" and (folder / "series").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["patches", "pin.toml"]
    try:
        with pytest.raises(ToolkitError, match="the next run puts"), files.together(pin, folder):
            pin.write_text("new")
            if subprocess.run(["chattr", "+i", str(pin)], capture_output=True).returncode:
                pytest.skip("no chattr +i here")  # root: only this stops the put-back
            raise RuntimeError("boom")
    finally:
        subprocess.run(["chattr", "-i", str(pin)], capture_output=True)
    assert pin.read_text() == "new"
    files.undo_dead(pin)  # what the next run's load_pin does
    assert pin.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["patches", "pin.toml"]


def test_a_journal_whose_removal_was_cut_short_is_not_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed while removing the journal of a block that succeeded: the next run keeps the
    new pair, not the old pin beside the part of the old folder the removal left."""
    pin, folder = tmp_path / "pin.toml", tmp_path / "patches"
    pin.write_text("old")
    folder.mkdir()
    for name in ("0001.patch", "series"):
        (folder / name).write_text("old")
    new = {"0002.patch": "new", "series": "new"}
    remove_tree = files.remove_tree

    class Killed(BaseException):
        pass

    def cut_short(path: Path) -> None:
        if not path.name.startswith(".pin.toml.journal-"):
            return remove_tree(path)
        (path / "folder" / "0001.patch").unlink()  # rmtree's order is the file system's
        raise Killed

    monkeypatch.setattr(files, "remove_tree", cut_short)
    with pytest.raises(Killed), files.together(pin, folder):
        with files.staged_dir(folder) as tmp:
            for name, text in new.items():
                (tmp / name).write_text(text)
        pin.write_text("new")
    monkeypatch.undo()
    gc.collect()  # the killed run's owner lock goes with it
    files.undo_dead(pin)  # what the next run's load_pin does
    assert pin.read_text() == "new"
    assert {p.name: p.read_text() for p in folder.iterdir()} == new
    assert sorted(p.name for p in tmp_path.iterdir()) == ["patches", "pin.toml"]


def test_recover_puts_back_a_folder_a_dead_swap_moved_aside_or_drops_it(tmp_path: Path) -> None:
    aside = tmp_path / ".patches.previous-12345"
    aside.mkdir()
    (aside / "series").write_text("old")
    files.recover(tmp_path / "patches")
    assert (tmp_path / "patches" / "series").read_text() == "old" and not aside.exists()
    aside.mkdir()  # the new folder was in when the run died
    files.recover(tmp_path / "patches")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["patches"]


def test_sweep_removes_dead_folders_and_keeps_live_ones(tmp_path: Path) -> None:
    dead = tmp_path / ".x.staging-dead"
    dead.mkdir()  # no owner holds it: its run died
    (tmp_path / ".x.staging-gone.owner").write_text("")  # an owner lock without its folder
    with files.owned_dir(tmp_path, ".x.staging-") as live:
        assert not dead.exists(), "owned_dir sweeps the dead siblings first"
        (tmp_path / ".x.staging-dead2").mkdir()
        removed = files.sweep(tmp_path, ".x.staging-*")
        assert [p.name for p in removed] == [".x.staging-dead2"]
        assert live.is_dir()
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_in_another_thread_never_takes_a_live_folder(tmp_path: Path) -> None:
    """The owner lock exists before the folder does, so no sweep sees it unowned."""
    stop = threading.Event()

    def sweeper() -> None:
        while not stop.is_set():
            files.sweep(tmp_path, ".s-*")

    thread = threading.Thread(target=sweeper)
    thread.start()
    try:
        for _ in range(100):
            with files.owned_dir(tmp_path, ".s-") as d:
                (d / "f").write_text("x")
                assert (d / "f").read_text() == "x"
    finally:
        stop.set()
        thread.join()


def test_a_held_lock_times_out_with_one_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(files.LOCK_TIMEOUT_ENV, "0.2")
    lock_file = tmp_path / "locks" / "x.lock"

    def other() -> str:
        try:
            with files.lock(lock_file, "the thing"):
                return "acquired"
        except ToolkitError as exc:
            return str(exc)

    with files.lock(lock_file, "the thing"):
        with files.lock(lock_file, "the thing"):  # reentrant in one thread
            pass
        with ThreadPoolExecutor() as pool:
            said = pool.submit(other).result()
    assert said.startswith(f"another run holds {lock_file} (the thing); waited 0 s")
    monkeypatch.setenv(files.LOCK_TIMEOUT_ENV, "soon")
    with pytest.raises(ToolkitError, match="must be a number of seconds"):
        files.lock(lock_file, "x").__enter__()
