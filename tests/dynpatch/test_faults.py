"""The rows of docs/troubleshooting.md, tried as a user would: through the command line, in a
temporary workspace. A refusal is exit status 2, one ``error:`` line, and what the user and the
tool keep byte-identical; kills use ``DYNPATCH_FAULT_AT`` and a real SIGKILL."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from dynpatch import cli, series
from dynpatch.io import files, pypi
from dynpatch.io import git as gitio
from dynpatch.services import formatters as formatting
from dynpatch.workspace import Workspace
from tests.fixtures import snippets, synthetic
from tests.fixtures.synthetic import REAL_CACHE, REPO, SYNTHETIC_FILES, build_wheel, git, write_pin

ROOT = Path(__file__).resolve().parents[2]
BRANCH = "refs/heads/dynpatch/work"
HELPER = "components/src/dynamo/common/backend/logprobs.py"
OTHER = ("--author", "Other Person <other@example.invalid>")  # a new commit to write


class World(Workspace):
    """A workspace with release 9.9.9 pinned, its wheel in the cache."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.wheel = self.wheels / "ai_dynamo-9.9.9-py3-none-any.whl"
        self.checkout = self.vendor / "pypi-9.9.9"

    def run(self, *args: str, fault: str | None = None, **env: str):  # type: ignore[no-untyped-def]
        return subprocess.run(
            self.argv(*args),
            env=self.env(fault, **env),
            cwd=self.root,
            capture_output=True,
            text=True,
        )

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "dynpatch", *args]

    def env(self, fault: str | None = None, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DYNPATCH_")}
        env |= {"DYNPATCH_LOCK_TIMEOUT": "60", "PYTHONPATH": str(ROOT), **extra}
        return env | ({"DYNPATCH_FAULT_AT": fault} if fault else {})

    def snapshot(self) -> dict[str, object]:
        """What a refusal must leave as it was."""
        state: dict[str, object] = {
            "patches": _tree_bytes(self.patches),
            "pin": self.pin.read_bytes(),
            "vendor": sorted(os.listdir(self.vendor)) if self.vendor.is_dir() else None,
        }
        clone = self.root / "clone"  # a user's own clone (--source path)
        state |= {"clone": _repo_state(clone)} if gitio.is_git_repo(clone) else {}
        return state | (_repo_state(self.checkout) if gitio.is_git_repo(self.checkout) else {})


def _tree_bytes(folder: Path) -> dict[str, bytes] | bytes | None:
    if folder.is_file():
        return folder.read_bytes()
    if not folder.is_dir():
        return None
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _repo_state(repo: Path) -> dict[str, object]:
    symbolic = ["git", "symbolic-ref", "-q", "HEAD"]  # empty when detached
    head = subprocess.run(symbolic, cwd=repo, capture_output=True, text=True).stdout
    return {
        "refs": git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
        "head": head + git(repo, "rev-parse", "HEAD"),
        "status": git(repo, "status", "--porcelain", "--untracked-files=all"),
        "diff": git(repo, "diff"),
    }


def one_error(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    return synthetic.one_error(proc.stderr, *needles)


def refused(world: World, *args: str, needles: tuple[str, ...] = (), **env: str) -> None:
    """``world.run(*args)`` is one error line holding ``needles`` and changes nothing."""
    before = world.snapshot()
    one_error(world.run(*args, **env), *needles)
    assert world.snapshot() == before


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


@pytest.fixture(scope="session")
def formatter_env() -> Path:
    """The upstream formatter env, built once (it is what a real .cache/ holds)."""
    formatting.tools_python(REPO)
    return REAL_CACHE / "tools"


def _world(root: Path, formatter_env: Path) -> World:
    w = World(root)
    w.wheels.mkdir(parents=True)
    w.tools.symlink_to(formatter_env)
    write_pin(w.pin, "9.9.9", w.wheel.name, build_wheel(w.wheel, SYNTHETIC_FILES))
    return w


@pytest.fixture
def world(tmp_path: Path, formatter_env: Path) -> World:
    return _world(tmp_path, formatter_env)


@pytest.fixture(scope="module")
def applied_once(tmp_path_factory: pytest.TempPathFactory, formatter_env: Path) -> World:
    w = _world(tmp_path_factory.mktemp("applied"), formatter_env)
    ok(w.run("apply"))
    return w


@pytest.fixture
def applied(applied_once: World, tmp_path: Path) -> World:
    """After one good ``apply`` (a series and a work branch): a copy per test."""
    shutil.copytree(applied_once.root, tmp_path, symlinks=True, dirs_exist_ok=True)
    return World(tmp_path)


def _sha(world: World) -> str:
    return next(ln.split('"')[1] for ln in world.pin.read_text().splitlines() if "sha256" in ln)


# --- a pin that does not parse (parse_pin's own cases: test_pin.py) ---------------------


@pytest.mark.parametrize(
    ("breaks", "needle"),
    [
        (lambda pin: pin.write_bytes(b"\xff\xfe"), "is malformed: not UTF-8 text"),
        (lambda pin: pin.unlink() or pin.mkdir(), "cannot read the pin file"),
        (Path.unlink, "no dynamo.toml in"),
    ],
    ids=["not-utf8", "folder", "missing"],
)
def test_a_broken_pin_is_one_line_and_the_fixed_pin_just_works(
    applied: World, breaks, needle
) -> None:
    good, before = applied.pin.read_bytes(), applied.snapshot()
    breaks(applied.pin)
    where = applied.pin if applied.pin.exists() else applied.root  # the file, or where it is not
    one_error(applied.run("apply"), needle, str(where))
    one_error(applied.run("pin", "runtime"), needle)  # what the noxfile asks
    if applied.pin.is_dir():
        applied.pin.rmdir()
    applied.pin.write_bytes(good)
    assert applied.snapshot() == before
    # Every row fails at reading the pin, and the state is as it was: the folder's row (the
    # pin replaced by a folder and back) runs apply again.
    if "cannot read" in needle:
        ok(applied.run("apply", "--check"))


def _broken_copy(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A copy of this toolkit with a pin that does not parse; what runs a command there."""
    copy = tmp_path / "toolkit"
    tracked = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for rel in filter(None, tracked):
        if (ROOT / rel).is_file():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, copy / rel)
    pin = copy / "dynamo.toml"
    pin.write_text(pin.read_text().replace("[upstream]", "[upstream", 1))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DYNPATCH_", "NOX"))}
    return lambda *argv: subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True)


def test_a_broken_pin_through_nox_is_the_same_one_line(tmp_path: Path) -> None:
    """The noxfile never parses the pin: listing sessions works with a broken one, and a
    session that needs the pinned version ends in the toolkit's own error line."""
    run = _broken_copy(tmp_path)
    listed = run(sys.executable, "-m", "nox", "-l")
    assert listed.returncode == 0 and "test-upstream" in listed.stdout, listed.stderr
    expected = one_error(run(sys.executable, "-m", "dynpatch", "pin", "runtime"), "is malformed")
    proc = run(sys.executable, "-m", "nox", "-s", "test-upstream")
    assert proc.returncode == 1, proc.stderr[-3000:]  # nox's own status for a failed session
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output, output[-3000:]
    assert [ln for ln in output.splitlines() if ln.startswith("error: ")] == [expected]


def test_a_credential_in_a_url_through_nox_is_refused_before_nox_prints_it(tmp_path: Path) -> None:
    """nox echoes each command it runs: the noxfile refuses first (installing nothing)."""
    run, nox = _broken_copy(tmp_path), (sys.executable, "-m", "nox", "--no-venv", "--no-install")
    password, token = "https://user:SECRET@127.0.0.1:9/x.git", "https://SECRET@127.0.0.1:9/x.git"
    for args in (("pr", "--", "--push", password), ("fetch", "--", f"--url={token}")):
        proc = run(*nox, "-s", *args)
        assert proc.returncode != 0 and "SECRET" not in proc.stdout + proc.stderr, proc.stderr
        assert "credential helper" in proc.stderr, proc.stderr


# --- refusals: one line, everything as it was -------------------------------------------


def _git(*args: str):  # type: ignore[no-untyped-def]
    return lambda w: ["fetch", "--source", "git", *args, "--timeout", "10"]


def _not_dynamo(w: World) -> list[str]:
    other = _upstream_repo(w.root / "other", {"README.md": "not dynamo\n"})
    return ["apply", "--source", "git", "--url", f"file://{other}"]


def _path(problem: str):  # type: ignore[no-untyped-def]
    def plant(w: World) -> list[str]:
        clone = _upstream_repo(w.root / "clone", _dynamo_files())
        (w.root / "plain" / "components/src/dynamo").mkdir(parents=True)
        if problem == "dirty":
            (clone / HELPER).write_text("edited\n")
        where = {"dirty": clone, "not-git": w.root / "plain", "missing": w.root / "no"}
        where["not-top"] = clone / "components"
        path = ["--path", str(where[problem])] if problem in where else []
        return ["apply", "--source", "path", *path]

    return plant


def _bad_wheel(data: bytes | None):  # type: ignore[no-untyped-def]
    def plant(w: World) -> list[str]:
        shutil.rmtree(w.checkout)
        if data is None:
            w.wheel.write_bytes(w.wheel.read_bytes()[:-10])  # truncated
        else:  # unreadable, with the pinned sha256
            w.wheel.write_bytes(data)
            w.pin.write_text(w.pin.read_text().replace(_sha(w), pypi.sha256_of(w.wheel)))
        return ["apply"]

    return plant


def _edited(name: str, text: str):  # type: ignore[no-untyped-def]
    """``patches/name`` (a glob) rewritten, then ``apply --check``."""
    return lambda w: next(w.patches.glob(name)).write_text(text) and ["apply", "--check"]


INJECT = "--upload-pack=touch pwned;"
REFUSED = {  # troubleshooting.md: identity, git URL not dynamo, option injection, a token in
    # a URL, --version not the pin, bad cached wheel, unreachable URL, stale series, --source path
    "author-dot": (lambda w: ["apply", "--author", ". <a@b.c>"], "not an identity of the form"),
    "author-trailing": (lambda w: ["apply", "--author", "Jane <j@x.invalid>\n"], "not an identity"),
    "not-dynamo": (_not_dynamo, "has no components/src/dynamo/: not a dynamo tree"),
    "ref-inject": (_git("--ref", INJECT), "is not a valid git tag"),
    "ref-dash": (_git("--ref", "-c"), "--ref: expected one argument"),
    "ref-spaced": (_git("--ref", f"v9.9.9 {INJECT}"), "is not a valid git tag"),
    "url-inject": (_git("--url", INJECT), ""),
    "url-ext": (_git("--url", "ext::sh -c touch% pwned"), ""),
    "token": (  # an unreachable URL, and a token in it
        _git("--url", "https://someone:SECRET-TOKEN@127.0.0.1:9/dynamo.git"),
        "cannot fetch v9.9.9 from https://127.0.0.1:9/dynamo.git",
    ),
    "other-version": (lambda w: ["apply", "--version", "9.9.8"], "nox -s bump -- 9.9.8"),
    "wheel-truncated": (_bad_wheel(None), "sha256 mismatch"),
    "wheel-unreadable": (_bad_wheel(b"PK\x03\x04 not a zip"), "is not a readable wheel"),
    "series-edited": (_edited("*.patch", "edited\n"), "is stale: regenerate"),
    "series-missing": (
        _edited("series", "# design: delta\n0002-missing.patch\n"),
        "is stale: regenerate",
    ),
    **{f"path-{p}": (_path(p), "") for p in ("dirty", "not-git", "missing", "not-top", "no-path")},
}


@pytest.mark.parametrize(("plant", "needle"), REFUSED.values(), ids=list(REFUSED))
def test_a_refusal_is_one_line_and_leaves_everything_as_it_was(
    applied: World, plant, needle
) -> None:
    """Nothing run (no hook, no injected option), no token printed or written, the cache
    holds no bad wheel, an unreachable remote fails within --timeout."""
    args = plant(applied)
    before, start = applied.snapshot(), time.monotonic()
    proc = applied.run(*args)
    one_error(proc, needle)
    assert applied.snapshot() == before
    assert "--timeout" not in args or time.monotonic() - start < 30
    assert not list(applied.root.rglob("pwned")) and not (ROOT / "pwned").exists()
    assert "SECRET" not in proc.stdout + proc.stderr
    for path in applied.root.rglob("*"):
        assert path.is_symlink() or not path.is_file() or b"SECRET" not in path.read_bytes()
    if applied.wheel.exists():  # the cache keeps no wheel but the pinned one
        assert zipfile.is_zipfile(applied.wheel) and pypi.sha256_of(applied.wheel) == _sha(applied)


def test_an_unknown_option_is_one_line_without_the_password_in_its_url(capsys) -> None:
    with pytest.raises(SystemExit) as exited:  # argparse's own refusal
        cli.main(["fetch", "--bogus", "https://user:TOKEN@example.invalid/x"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    synthetic.one_error(err, "unrecognized arguments: --bogus https://example.invalid/x")
    assert "TOKEN" not in err and "user:" not in err


@pytest.mark.parametrize(("verb", "full"), [("verify", "out"), ("fetch", "vendor")])
def test_a_full_disk_is_one_short_line_naming_the_path(
    applied: World, verb: str, full: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """verify's copy of a tree fails on each of its files; fetch's lay-out of the wheel on one
    (whose error, a write's, names no path)."""
    if verb == "fetch":
        shutil.rmtree(applied.checkout)
    before, where = applied.snapshot(), applied.root / full
    copyfile, write_bytes = shutil.copyfile, Path.write_bytes

    def no_space(path: Path) -> None:
        if Path(path).is_relative_to(where):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(shutil, "copyfile", lambda a, b, **k: no_space(b) or copyfile(a, b, **k))
    monkeypatch.setattr(Path, "write_bytes", lambda p, data: no_space(p) or write_bytes(p, data))
    monkeypatch.chdir(applied.root)
    assert cli.main([verb, "--budget", "0"] if verb == "verify" else [verb]) == 2
    line = synthetic.one_error(capsys.readouterr().err, f"{where}/", "No space left on device")
    assert len(line) <= 300 and applied.snapshot() == before, line[:1000]


# --- a run killed at any step: old or new, whole; the next run cleans up --------------------


def _recovers(world: World, good: object, **env: str) -> None:
    """The next run needs no --force, gives the good series and leaves nothing of the dead."""
    ok(world.run("apply", **env))
    assert _tree_bytes(world.patches) == good and world.wheel.is_file()
    assert not list(world.root.glob(".patches.*")) and not list(world.vendor.glob(".*"))
    assert not list(world.scratch.glob("apply-*")) and not list(world.wheels.glob(".*"))


def _no_checkout(world: World) -> dict[str, str]:
    shutil.rmtree(world.checkout)
    return {}


def _no_wheel(world: World) -> dict[str, str]:
    """pip is given a local index of the wheel, which leaves the cache."""
    shutil.rmtree(world.checkout)
    (world.root / "index").mkdir()
    world.wheel.rename(world.root / "index" / world.wheel.name)
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(world.root / "index")}


@pytest.mark.parametrize(
    ("step", "prepare", "left"),
    [
        ("apply.objects", lambda w: {}, ".cache/scratch/apply-*"),
        ("patches.staged", lambda w: {}, ".patches.*"),
        ("swap.aside", lambda w: {}, ".patches.previous-*"),
        ("fetch.staged", _no_checkout, "vendor/.pypi-9.9.9.staging-*"),
        ("download.partial", _no_wheel, ".cache/wheels/.download-*"),
    ],
)
def test_a_kill_at_a_named_step_leaves_old_or_new_whole(
    applied: World, step, prepare, left
) -> None:
    (applied.patches / "NOTES.md").write_text("mine\n")  # not part of the series: kept
    good = _tree_bytes(applied.patches)
    (applied.patches / "series").write_text("# design: delta\nstale\n")
    stale, checkout = _tree_bytes(applied.patches), _repo_state(applied.checkout)
    env = prepare(applied)
    synthetic.committed(applied.root)  # a repository as this one: what git status shows
    assert applied.run("apply", fault=step, **env).returncode == -signal.SIGKILL
    assert list(applied.root.glob(left)), f"the kill at {step} left nothing to clean"
    assert synthetic.git_status(applied.root) <= {"patches"}  # what the kill left is ignored
    now = _tree_bytes(applied.patches)
    assert now in (stale, good) or (step == "swap.aside" and now is None)  # or moved aside
    if gitio.is_git_repo(applied.checkout):
        assert _repo_state(applied.checkout) == checkout  # the branch moves last
    _recovers(applied, good, **env)


@pytest.mark.parametrize("delay", [0.3, 1.5])
def test_sigkill_of_the_process_group_at_any_moment(applied: World, delay: float) -> None:
    """A real kill -9 of the whole process group, at a moment nobody chose."""
    good = _tree_bytes(applied.patches)
    applied.patches.joinpath("series").write_text("# design: delta\nstale\n")
    stale = _tree_bytes(applied.patches)
    proc = subprocess.Popen(
        applied.argv("apply"),
        env=applied.env(),
        cwd=applied.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    time.sleep(delay)
    with contextlib.suppress(ProcessLookupError):  # it may have finished
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _tree_bytes(applied.patches) in (good, stale)  # before or after, never between
    _recovers(applied, good)


# --- two runs at once --------------------------------------------------------------------


def test_a_held_lock_makes_the_second_run_wait_then_say_who_holds_it(applied: World) -> None:
    held = ("another run holds", "waited 1 s")
    with files.lock(series.lock(applied.locks, applied.patches), "the test"):
        refused(applied, "apply", *OTHER, needles=held, DYNPATCH_LOCK_TIMEOUT="1")


def test_two_concurrent_applies_both_succeed(applied: World) -> None:
    (applied.patches / "series").write_text("# design: delta\nstale\n")
    procs = [
        subprocess.Popen(applied.argv("apply", *force), env=applied.env(), cwd=applied.root)
        for force in ((), ("--force",))
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    ok(applied.run("apply", "--check"))


# --- the work branch: a commit of yours, or checked out ------------------------------------


def test_a_user_commit_on_the_work_branch_needs_force(applied: World) -> None:
    repo = applied.checkout
    tip = git(repo, "rev-parse", BRANCH).strip()
    mine = git(repo, "commit-tree", f"{tip}^{{tree}}", "-p", tip, "-m", "my own work").strip()
    git(repo, "update-ref", BRANCH, mine, tip)
    refused(applied, "apply", needles=("a commit this tool did not make", "--force"))
    ok(applied.run("apply", "--force"))
    assert git(repo, "rev-parse", BRANCH).strip() == tip
    assert mine in git(repo, "reflog", "show", "--format=%H", BRANCH)  # still reachable


def test_path_source_never_changes_the_users_checked_out_branch(world: World) -> None:
    """Also the row "dynpatch/work checked out somewhere": refused even with --force."""
    clone = _upstream_repo(world.root / "clone", _dynamo_files())
    git(clone, "checkout", "-q", "-b", "my-topic")
    before = _repo_state(clone)
    ok(world.run("apply", "--source", "path", "--path", str(clone)))
    after = _repo_state(clone)
    assert after["head"] == before["head"] and after["status"] == before["status"] == ""
    assert git(clone, "rev-parse", "dynpatch/work~1") == git(clone, "rev-parse", "my-topic")
    git(clone, "checkout", "-q", "dynpatch/work")
    git(clone, "reset", "-q", "--hard", "my-topic")  # the tip is now stale for apply
    path = ("--source", "path", "--path", str(clone), "--force")
    refused(world, "apply", *path, needles=("dynpatch/work is checked out in",))  # clone kept


# --- the cached checkout: edited, tag deleted or moved, a plain file ----------------------


def _move_tag(repo: Path) -> None:
    other = git(repo, "commit-tree", "upstream/9.9.9^{tree}", "-m", "same tree, other commit")
    git(repo, "tag", "-f", "upstream/9.9.9", other.strip())


def _plain_file(repo: Path) -> None:
    shutil.rmtree(repo)
    repo.write_text("not a checkout\n")


@pytest.mark.parametrize(
    ("tamper", "needle"),
    [
        (_move_tag, "not the reproducible base"),
        (lambda repo: git(repo, "tag", "-d", "upstream/9.9.9"), "has no tag upstream/9.9.9"),
        (lambda repo: (repo / HELPER).write_text("# my experiment\n"), "has local changes"),
        (_plain_file, "is not a git repository"),
    ],
    ids=["tag-moved", "tag-deleted", "dirty", "plain-file"],
)
def test_a_tampered_checkout_is_kept_without_force_and_rebuilt_with_it(
    applied: World, tamper, needle: str
) -> None:
    """The base is checked by commit id, not by tree; what the user made is never lost
    without --force."""
    tamper(applied.checkout)
    kept = applied.checkout.is_file() and applied.checkout.read_bytes()
    refused(applied, "apply", needles=(needle, "--force"))
    assert kept == (applied.checkout.is_file() and applied.checkout.read_bytes())
    ok(applied.run("apply", "--force"))  # rebuilt from the wheel
    assert _repo_state(applied.checkout)["status"] == ""


# --- the git and path sources --------------------------------------------------------------


def _upstream_repo(where: Path, files_: dict[str, str]) -> Path:
    git(synthetic.write_files(where, files_), "init", "-q")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "release")
    git(where, "tag", "v9.9.9")
    return where


def _dynamo_files(extra: str = "") -> dict[str, str]:
    return {
        HELPER: snippets.HELPER + extra,
        "components/src/dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER,
    }


def test_the_git_cache_is_per_url_and_records_it(world: World) -> None:
    a = _upstream_repo(world.root / "a", _dynamo_files())
    b = _upstream_repo(world.root / "b", _dynamo_files("# another fork\n"))
    out_a = ok(world.run("fetch", "--source", "git", "--url", f"file://{a}")).stdout
    out_b = ok(world.run("fetch", "--source", "git", "--url", f"file://{b}")).stdout
    assert f"Upstream: file://{a} v9.9.9" in out_a and f"Upstream: file://{b} v9.9.9" in out_b
    assert git(b, "rev-parse", "HEAD").strip() in out_b
    again = ok(world.run("fetch", "--source", "git", "--url", f"file://{a}")).stdout  # cached
    assert f"Upstream: file://{a} v9.9.9" in again and git(a, "rev-parse", "HEAD").strip() in again
    assert len(list(world.vendor.glob("git-v9.9.9-*"))) == 2


def test_a_token_in_the_pinned_url_stays_out_of_the_patch(world: World) -> None:
    pin = world.pin.read_text()
    world.pin.write_text(pin.replace("https://", "https://someone:SECRET-TOKEN@"))
    proc = ok(world.run("apply"))
    assert "SECRET" not in proc.stdout + proc.stderr
    patch = "".join(p.read_text() for p in world.patches.glob("*.patch"))
    assert "Upstream: https://example.invalid/dynamo v9.9.9" in patch and "SECRET" not in patch


# --- a folder the run replaces is a file or cannot be written ------------------------------


@contextlib.contextmanager
def immutable(path: Path, moves_within: Path | None = None):  # type: ignore[no-untyped-def]
    """``chattr +i`` on ``path`` for the block (root ignores chmod, not this); undone on
    every ``moves_within/*/<name>`` when the run may move its folder."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr (e2fsprogs) is not installed")
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip(f"the file system of {path} does not support chattr +i")
    try:
        yield
    finally:
        moved = moves_within.glob(f"*/{path.name}") if moves_within else [path]
        subprocess.run(["chattr", "-i", *map(str, moved)], check=True)


@pytest.mark.parametrize(
    ("folder", "frozen", "needle"),
    [
        ("patches", False, "is not a folder"),
        ("patches", True, "Operation not permitted"),
        ("vendor", True, "Operation not permitted"),
    ],
)
def test_a_folder_that_cannot_be_replaced_is_one_line(
    applied: World, folder, frozen, needle
) -> None:
    path = getattr(applied, folder)
    if folder == "vendor":
        shutil.rmtree(applied.checkout)  # to be fetched again
    elif frozen:
        (path / "series").write_text("# design: delta\nstale\n")
    else:
        shutil.rmtree(path)
        path.write_text("a file where the folder should be\n")
    with immutable(path) if frozen else contextlib.nullcontext():
        refused(applied, "apply", needles=(str(path), needle))
    assert not list(applied.root.glob(".patches.*"))


def test_an_old_patches_folder_that_cannot_be_removed_warns_once(applied: World) -> None:
    """The new series is in: exit 0, one warning, and no later run is stopped by it."""
    good = _tree_bytes(applied.patches)
    stale = applied.patches / "series"
    stale.write_text("# design: delta\nstale\n")
    with immutable(stale, moves_within=applied.root):
        proc = ok(applied.run("apply"))
        assert _tree_bytes(applied.patches) == good
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("warning: cannot remove "), proc.stderr
        assert "Operation not permitted" in lines[0] and "remove it by hand" in lines[0]
        for later in (("--check",), OTHER):
            assert "warning" not in ok(applied.run("apply", *later)).stderr


# --- the rest of the table ---------------------------------------------------------------


def test_drift_names_every_problem_and_prints_the_table_it_points_to(world: World) -> None:
    drifted = dict(SYNTHETIC_FILES)
    drifted["dynamo/common/backend/logprobs.py"] = "def unrelated():\n    pass\n"
    drifted["dynamo/trtllm/request_handlers/handler_base.py"] = "class HandlerBase:\n    pass\n"
    world.pin.write_text(
        world.pin.read_text().replace(_sha(world), build_wheel(world.wheel, drifted))
    )
    proc = world.run("apply")
    assert len(one_error(proc, "more in the table above")) <= 300  # its middle cut
    assert "drifted" in proc.stdout and "target" in proc.stdout, proc.stdout  # the table


def test_git_reason_is_the_fatal_line_not_the_advice() -> None:
    stderr = (
        "fatal: Unable to create '/x/.git/index.lock': File exists.\n\n"
        "Another git process seems to be running in this repository, e.g.\n"
    )
    assert gitio.git_reason(stderr) == "Unable to create '/x/.git/index.lock': File exists."
    remote = (
        "fatal: 'nowhere' does not appear to be a git repository\n"
        "fatal: Could not read from remote repository.\n\nPlease make sure you have the correct\n"
    )
    assert gitio.git_reason(remote) == "'nowhere' does not appear to be a git repository"


def test_a_stale_index_lock_in_the_checkout_does_not_stop_apply(applied: World) -> None:
    """apply commits through a private index: git's index lock in the checkout (left by a
    crashed git) is not in its way, and is left as it is."""
    lock = applied.checkout / ".git" / "index.lock"
    lock.write_text("")
    ok(applied.run("apply", *OTHER))
    assert lock.exists()
