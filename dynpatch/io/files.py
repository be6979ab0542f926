"""Writing files and folders all-or-nothing, and locks; scratch folders hold an owner lock
while their run lives, so the next run removes or undoes only what a dead one left."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import filelock

from dynpatch.errors import ToolkitError
from dynpatch.io import atomic, faults

LOCK_TIMEOUT_ENV = "DYNPATCH_LOCK_TIMEOUT"
_STAGING, _PREVIOUS, _OWNER, _JOURNAL = ".staging-", ".previous-", ".owner", ".journal-"


def write_atomic(path: Path, text: str | bytes) -> None:
    with os_errors(f"cannot write {path}"):
        atomic.write_atomic(path, text)


def write_new(path: Path, data: bytes) -> None:
    """``path.write_bytes(data)``, whose error names the path (a failed write's does not)."""
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, exc.filename or str(path)) from None


def os_error(exc: OSError, doing: str = "") -> ToolkitError:
    """``doing`` failed, in one line: the path and why (of a copy's list of failures, a
    ``shutil.Error``: the first, and how many more); without ``doing``: the path, then why."""
    path, why = exc.filename, exc.strerror or str(exc)
    failures = exc.args[0] if isinstance(exc, shutil.Error) and exc.args else None
    if isinstance(failures, list) and failures:
        (_src, path, why), more = failures[0], len(failures) - 1
        why = re.sub(r"^\[Errno \d+\] |: '.*'$", "", str(why))
        why += f" (+{more} more)" if more else ""
    if not doing:
        return ToolkitError(f"{path}: {why}" if path else why)
    where = f" ({path})" if path and str(path) not in doing else ""
    return ToolkitError(f"{doing}{where}: {why}")


@contextmanager
def os_errors(doing: str) -> Iterator[None]:
    """An OSError in the block raised as :func:`os_error`'s one line."""
    try:
        yield
    except OSError as exc:
        raise os_error(exc, doing) from None


@contextmanager
def lock(lock_file: Path, what: str) -> Iterator[None]:
    """Hold the inter-process lock ``lock_file`` (guarding ``what``); reentrant in one thread."""
    raw = os.environ.get(LOCK_TIMEOUT_ENV) or "600"
    try:
        timeout = float(raw)
    except ValueError:
        raise ToolkitError(
            f"${LOCK_TIMEOUT_ENV} must be a number of seconds, not {raw!r}"
        ) from None
    held = filelock.FileLock(str(lock_file.resolve()), is_singleton=True)
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


@contextmanager
def owned_dir(parent: Path, prefix: str) -> Iterator[Path]:
    """A new folder ``parent/prefix*`` for the block, then removed; dead runs' are swept first."""
    sweep(parent, f"{prefix}*")
    with os_errors(f"cannot create a scratch folder in {parent}"):
        while True:
            # The owner lock (filelock makes `parent`) is taken before the folder exists, so no
            # sweep sees this folder unowned; a name a sweep holds at that instant is passed over.
            path = parent / f"{prefix}{secrets.token_hex(6)}"
            owner = filelock.FileLock(str(path) + _OWNER, thread_local=False)
            with suppress(filelock.Timeout):
                owner.acquire(timeout=0)
                break
        path.mkdir()
    try:
        yield path
    finally:
        _discard(path)
        owner.release()
        Path(str(path) + _OWNER).unlink(missing_ok=True)


def sweep(parent: Path, pattern: str, undo: Callable[[Path], None] | None = None) -> list[Path]:
    """Remove the folders ``parent/pattern`` whose run died (their owner lock is free;
    ``undo`` is called on each first) and owner locks left alone; return the folders."""
    removed = []
    for path in sorted(parent.glob(pattern)):
        folder = Path(str(path).removesuffix(_OWNER))
        if folder.exists() if folder != path else not path.is_dir():
            continue  # a folder's own owner lock (met with the folder), or not a folder
        owner = filelock.FileLock(str(folder) + _OWNER, thread_local=False)
        try:
            owner.acquire(timeout=0)
        except (filelock.Timeout, OSError):
            continue  # a live run's
        try:
            if folder.is_dir():
                if undo is not None:
                    undo(folder)
                if _discard(folder, warn=False):
                    removed.append(folder)
        finally:
            owner.release()
            Path(str(folder) + _OWNER).unlink(missing_ok=True)
    return removed


def remove_tree(path: Path) -> None:
    with os_errors(f"cannot remove {path}"):
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.exists():
            shutil.rmtree(path)


def _discard(path: Path, *, warn: bool = True) -> bool:
    """Remove what this run no longer needs; True when done. What cannot be removed stays
    (its name is this run's own: it stops no later run), with one warning."""
    try:
        remove_tree(path)
    except ToolkitError as exc:
        if warn:
            print(f"warning: {exc}: left there, remove it by hand", file=sys.stderr)
        return False
    return True


def refuse_non_folder(path: Path) -> None:
    if (path.exists() or path.is_symlink()) and not path.is_dir():
        raise ToolkitError(f"{path} is not a folder: move it away and rerun")


def recover(final: Path) -> None:
    """Remove dead runs' staging folders for ``final``; a folder a dead swap moved aside is
    put back if ``final`` is missing, else removed."""
    sweep(final.parent, f".{final.name}{_STAGING}*")
    for aside in sorted(final.parent.glob(f".{final.name}{_PREVIOUS}*")):
        if final.exists() or final.is_symlink():
            _discard(aside, warn=False)
        else:
            os.replace(aside, final)  # an OSError names the path: one line from the CLI


@contextmanager
def staged_dir(final: Path, *, keep: frozenset[str] = frozenset()) -> Iterator[Path]:
    """A staging folder beside ``final`` that replaces it whole when the block ends without
    error, carrying over old entries named in ``keep``; the caller holds ``final``'s lock."""
    recover(final)
    refuse_non_folder(final)
    with owned_dir(final.parent, f".{final.name}{_STAGING}") as tmp:
        yield tmp
        if final.is_dir() and not final.is_symlink():
            for name in keep:
                src = final / name
                if (src.is_file() or src.is_dir()) and not (tmp / name).exists():
                    _copy(src, tmp / name)
        # Two renames: a kill between them leaves the old folder aside, for recover().
        aside = final.parent / f".{final.name}{_PREVIOUS}{secrets.token_hex(6)}"
        try:
            if final.exists() or final.is_symlink():
                os.replace(final, aside)
            faults.checkpoint("swap.aside")
            os.replace(tmp, final)
        except OSError as exc:
            if aside.exists() and not final.exists():
                os.replace(aside, final)
            raise os_error(exc, f"cannot put the new {final.name} in place at {final}") from None
        _discard(aside)


@contextmanager
def together(file: Path, folder: Path) -> Iterator[None]:
    """Replace ``file`` and ``folder`` in the block: both, or neither. They are journaled
    first; a failed block puts them back, a dead run's the next :func:`undo_dead`."""
    undo_dead(file)
    with owned_dir(file.parent, f".{file.name}{_JOURNAL}") as journal:
        with os_errors(f"cannot save {file} and {folder} before replacing them"):
            _copy(file, journal / "file")
            _copy(folder, journal / "folder")
        complete = journal / "folder.path"
        write_atomic(complete, str(folder.resolve()))  # last: complete
        try:
            yield
        except BaseException:
            try:
                _put_back(journal, file)
            except (OSError, ToolkitError) as exc:
                journal.rename(f"{journal}-kept")  # outlives this run, for the next one
                raise ToolkitError(f"{exc}: the next run puts {file} and {folder} back") from None
            raise
        # Done: first the mark, so a removal of the journal cut short (in rmtree's order)
        # leaves an incomplete journal, which the next run discards rather than puts back.
        complete.unlink()


def undo_dead(file: Path) -> None:
    """Put back ``file`` and its folder as a run that died in :func:`together` found them."""
    sweep(file.parent, f".{file.name}{_JOURNAL}*", undo=lambda journal: _put_back(journal, file))


def _put_back(journal: Path, file: Path) -> None:
    where = journal / "folder.path"
    if not where.is_file():
        return  # the journal was not complete: nothing had been replaced
    write_atomic(file, (journal / "file").read_bytes())
    with staged_dir(Path(where.read_text())) as tmp:
        for entry in (journal / "folder").iterdir():
            _copy(entry, tmp / entry.name)


def _copy(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst, symlinks=True)
    else:
        shutil.copy2(src, dst)
