"""Writing files and folders all-or-nothing, and locking what two runs could share: a file
through a temporary file and one rename; a folder built beside its place and swapped in
whole (:func:`staged_dir`); a file and a folder together, journaled (:func:`together`).
A dead run's leftovers are undone or removed by the next (:func:`recover`,
:func:`undo_dead`, :func:`sweep`): scratch folders are owned, each holding a lock while
its run lives, so only a dead run's are taken.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import filelock

from dynpatch.errors import ToolkitError
from dynpatch.io import atomic, faults

LOCK_TIMEOUT_ENV = "DYNPATCH_LOCK_TIMEOUT"
# Test-only: use the two-rename swap even where an atomic exchange exists.
NO_EXCHANGE_ENV = "DYNPATCH_NO_EXCHANGE"
DEFAULT_LOCK_TIMEOUT = 600.0
_STAGING = ".staging-"
_PREVIOUS = ".previous-"
_OWNER = ".owner"
_JOURNAL = ".journal-"


def write_atomic(path: Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` via a temporary file and a rename (never half-written).

    An existing file keeps its mode; a new one gets 0644.
    """
    try:
        atomic.write_atomic(path, text)
    except OSError as exc:
        raise os_error(exc, f"cannot write {path}") from None


def os_error(exc: OSError, doing: str) -> ToolkitError:
    """One line for an OSError: what was being done, the path, and why."""
    where = f" ({exc.filename})" if exc.filename and str(exc.filename) not in doing else ""
    return ToolkitError(f"{doing}{where}: {exc.strerror or exc}")


# --- locks ----------------------------------------------------------------------------

_LOCKS: dict[str, filelock.FileLock] = {}
_LOCKS_GUARD = threading.Lock()


def lock_timeout() -> float:
    raw = os.environ.get(LOCK_TIMEOUT_ENV, "")
    try:
        return float(raw) if raw else DEFAULT_LOCK_TIMEOUT
    except ValueError:
        raise ToolkitError(
            f"${LOCK_TIMEOUT_ENV} must be a number of seconds, not {raw!r}"
        ) from None


@contextmanager
def lock(lock_file: Path, what: str) -> Iterator[None]:
    """Hold the inter-process lock ``lock_file`` (guarding ``what``) for the block.

    Waits at most ``$DYNPATCH_LOCK_TIMEOUT`` seconds (default 600), then fails with one
    line naming the lock. Nested use in one process is reentrant. A lock of a run that
    died is free again at once (the operating system drops it with the process).
    """
    key = str(lock_file.resolve())
    with _LOCKS_GUARD:
        held = _LOCKS.get(key)
        if held is None:
            try:
                lock_file.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise os_error(exc, f"cannot create the lock for {what}") from None
            held = _LOCKS[key] = filelock.FileLock(key)  # reentrant per thread
    timeout = lock_timeout()
    try:
        held.acquire(timeout=timeout)
    except filelock.Timeout:
        raise ToolkitError(
            f"another run holds {lock_file} ({what}); waited {timeout:.0f} s: let it finish "
            f"and rerun (${LOCK_TIMEOUT_ENV} sets the wait)"
        ) from None
    except OSError as exc:
        raise os_error(exc, f"cannot take the lock for {what}") from None
    try:
        yield
    finally:
        held.release()


# --- owned scratch folders -------------------------------------------------------------


@contextmanager
def owned_dir(parent: Path, prefix: str) -> Iterator[Path]:
    """A new folder ``parent/prefix*`` owned by this run; removed when the block ends.

    The owner lock (``<folder>.owner``) is held for the block, so :func:`sweep` never
    removes a live run's folder; folders of dead runs with the same prefix are removed
    first.
    """
    sweep(parent, f"{prefix}*")  # what dead runs left under the same name
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for _ in range(100):
            # The owner lock is taken before the folder exists, so a sweep never sees
            # this run's folder without its lock held. A name whose lock another process
            # holds at that instant (a sweep looking at it) is passed over.
            path = parent / f"{prefix}{secrets.token_hex(6)}"
            owner = filelock.FileLock(str(path) + _OWNER, thread_local=False)
            try:
                owner.acquire(timeout=0)
            except filelock.Timeout:
                continue
            try:
                path.mkdir()
                break
            except FileExistsError:
                owner.release()
        else:
            raise ToolkitError(f"cannot create a scratch folder in {parent}: no free name")
    except OSError as exc:
        raise os_error(exc, f"cannot create a scratch folder in {parent}") from None
    try:
        yield path
    finally:
        _discard(path)
        owner.release()
        Path(str(path) + _OWNER).unlink(missing_ok=True)


def sweep(parent: Path, pattern: str, undo: Callable[[Path], None] | None = None) -> list[Path]:
    """Remove the folders ``parent/pattern`` (a glob) whose run died: their owner lock is
    free (``undo`` is called on each first). A live run's folders, and those that cannot
    be removed, are left alone."""
    removed: list[Path] = []
    if not parent.is_dir():
        return removed
    for path in sorted(parent.glob(pattern)):
        if path.name.endswith(_OWNER):
            _drop_orphan_owner(path)
            continue
        if not path.is_dir():
            continue
        owner = filelock.FileLock(str(path) + _OWNER, thread_local=False)
        try:
            owner.acquire(timeout=0)
        except (filelock.Timeout, OSError):
            continue  # a live run's folder
        try:
            if undo is not None:
                undo(path)
            if _discard(path, warn=False):
                removed.append(path)
        finally:
            owner.release()
            Path(str(path) + _OWNER).unlink(missing_ok=True)
    return removed


def _drop_orphan_owner(owner_file: Path) -> None:
    """Remove an owner lock left without its folder by a run that died (lock free)."""
    if Path(str(owner_file).removesuffix(_OWNER)).exists():
        return
    owner = filelock.FileLock(str(owner_file), thread_local=False)
    try:
        owner.acquire(timeout=0)
    except (filelock.Timeout, OSError):
        return
    try:
        if not Path(str(owner_file).removesuffix(_OWNER)).exists():
            owner_file.unlink(missing_ok=True)
    finally:
        owner.release()


def remove_tree(path: Path) -> None:
    """Remove a folder, a file or a link at ``path`` (absent is fine)."""
    try:
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.exists():
            shutil.rmtree(path)
    except OSError as exc:
        raise os_error(exc, f"cannot remove {path}") from None


def _discard(path: Path, *, warn: bool = True) -> bool:
    """Remove what this run no longer needs; True when done. What cannot be removed stays
    (no later run is stopped by it: its name is this run's own) with one warning."""
    try:
        remove_tree(path)
    except ToolkitError as exc:
        if warn:
            print(f"warning: {exc}: left there, remove it by hand", file=sys.stderr)
        return False
    return True


def refuse_non_folder(path: Path) -> None:
    """One line when something other than a folder stands where folder ``path`` goes: it
    may be the user's, so it is kept for them to move."""
    if (path.exists() or path.is_symlink()) and not path.is_dir():
        raise ToolkitError(f"{path} is not a folder: move it away and rerun")


# --- folders replaced whole ------------------------------------------------------------


def recover(final: Path) -> None:
    """Finish or undo what a dead run left around ``final``.

    Staging folders of dead runs are removed. A folder moved aside by a swap that died
    before the new one went in is put back when ``final`` is missing, else removed.
    """
    parent = final.parent
    sweep(parent, f".{final.name}{_STAGING}*")
    for aside in sorted(parent.glob(f".{final.name}{_PREVIOUS}*")):
        if aside.name.endswith(_OWNER):
            continue
        if not final.exists() and not final.is_symlink():
            try:
                os.replace(aside, final)
            except OSError as exc:
                raise os_error(exc, f"cannot restore {final} from {aside}") from None
        else:
            _discard(aside, warn=False)


@contextmanager
def staged_dir(final: Path, *, keep: frozenset[str] = frozenset()) -> Iterator[Path]:
    """Build a folder that replaces ``final`` whole, or not at all.

    The block fills the yielded staging folder (beside ``final``, so the swap is a
    rename on one file system); when it ends without error the staging folder takes
    ``final``'s place. Entries of the old ``final`` named in ``keep`` are carried over
    (not overwritten). On error ``final`` is as it was. The caller holds the lock that
    guards ``final``; leftovers of dead runs are cleaned first. A file at ``final`` is
    refused (:func:`refuse_non_folder`).
    """
    recover(final)
    refuse_non_folder(final)
    with owned_dir(final.parent, f".{final.name}{_STAGING}") as tmp:
        yield tmp
        if final.is_dir() and not final.is_symlink():
            for name in keep:
                src = final / name
                if (src.is_file() or src.is_dir()) and not (tmp / name).exists():
                    _copy(src, tmp / name)
        _swap_in(tmp, final)  # `tmp` is now the old folder, or gone


def _swap_in(new: Path, final: Path) -> None:
    """Put folder ``new`` where ``final`` is (a link or folder there is replaced).

    Where the system can exchange two paths in one step (Linux ``renameat2``), that is
    how: ``final`` is the old or the new folder at every instant, and ``new`` ends up
    holding the old one (for the caller to remove). Elsewhere the old one is moved aside
    first; a run killed between the two renames is undone by :func:`recover`.
    """
    if final.is_dir() and not final.is_symlink() and _exchange(new, final):
        faults.checkpoint("swap.exchanged")
        return
    aside = final.parent / f".{final.name}{_PREVIOUS}{os.getpid()}"
    try:
        if final.exists() or final.is_symlink():
            remove_tree(aside)
            os.replace(final, aside)
        faults.checkpoint("swap.aside")
        os.replace(new, final)
    except OSError as exc:
        if aside.exists() and not final.exists():
            os.replace(aside, final)
        raise os_error(exc, f"cannot put the new {final.name} in place at {final}") from None
    _discard(aside)


# --- a file and a folder replaced together ---------------------------------------------


@contextmanager
def together(file: Path, folder: Path) -> Iterator[None]:
    """Replace ``file`` and ``folder`` in the block: both, or neither.

    Both are saved first to a journal beside ``file``. If the block fails they are put
    back from it; if the run dies in the block, the next :func:`undo_dead` puts them back.
    The caller holds the lock that guards both.
    """
    undo_dead(file)
    with owned_dir(file.parent, f".{file.name}{_JOURNAL}") as journal:
        try:
            _copy(file, journal / "file")
            _copy(folder, journal / "folder")
        except OSError as exc:
            raise os_error(exc, f"cannot save {file} and {folder} before replacing them") from None
        write_atomic(journal / "folder.path", str(folder.resolve()))  # last: complete
        try:
            yield
        except BaseException:
            try:
                _put_back(journal, file)
            except (OSError, ToolkitError) as exc:
                journal.rename(f"{journal}-kept")  # outlives this run, for the next one
                raise ToolkitError(f"{exc}: the next run puts {file} and {folder} back") from None
            raise


def undo_dead(file: Path) -> None:
    """Put ``file`` and its folder back as a run that died inside :func:`together` found
    them (its journal is complete: it may have replaced either)."""
    sweep(file.parent, f".{file.name}{_JOURNAL}*", undo=lambda journal: _put_back(journal, file))


def _put_back(journal: Path, file: Path) -> None:
    where = journal / "folder.path"
    if not where.is_file():
        return  # the journal was not complete: nothing had been replaced
    write_atomic(file, (journal / "file").read_bytes())
    with staged_dir(Path(where.read_text())) as tmp:
        for entry in (journal / "folder").iterdir():
            _copy(entry, tmp / entry.name)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths atomically; False where the system cannot."""
    if sys.platform != "linux" or os.environ.get(NO_EXCHANGE_ENV):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if done == 0:
        return True
    errno = ctypes.get_errno()
    if errno in (38, 22, 95):  # ENOSYS, EINVAL, EOPNOTSUPP: not here; use the fallback
        return False
    raise os_error(OSError(errno, os.strerror(errno), str(b)), f"cannot swap in {b}")


def _copy(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst, symlinks=True)
    else:
        shutil.copy2(src, dst)
