"""Faults and bad input, tried as a user would: through the command line, in a temporary
workspace (its own pin, vendor/ and patches/; the formatter env is shared read-only).

Every case asserts the exit status, exactly one ``error:`` line and no traceback, and
that what the user and the tool keep (``patches/``, the pin, the checkout's refs, HEAD
and status) is byte-identical before and after, or completely as after. Kills use the
test-only ``DYNPATCH_FAULT_AT`` hook (the process SIGKILLs itself at a named step) and a
real SIGKILL of the process group.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from dynpatch import series
from dynpatch.apply import tools as formatting
from dynpatch.io import files, pypi
from dynpatch.io import git as gitio
from tests.fixtures import snippets
from tests.fixtures.synthetic import REAL_VENDOR, SYNTHETIC_FILES, build_wheel, git, write_pin

ROOT = Path(__file__).resolve().parents[2]
CHECKOUT = "checkouts/pypi-9.9.9"
BRANCH = "refs/heads/dynpatch/work"


@pytest.fixture(scope="session")
def formatter_env() -> Path:
    """The upstream formatter env, built once (it is what a real vendor/ holds)."""
    formatting.tools_python(REAL_VENDOR)
    return REAL_VENDOR / "tools"


@dataclass
class World:
    tmp: Path
    vendor: Path
    pin: Path
    patches: Path
    wheel: Path

    @property
    def checkout(self) -> Path:
        return self.vendor / CHECKOUT

    def run(
        self, *args: str, fault: str | None = None, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args),
            env=self.env(fault, **env),
            cwd=self.tmp,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "dynpatch", *args]  # run in the world's root

    def env(self, fault: str | None = None, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DYNPATCH_")}
        env |= {"DYNPATCH_LOCK_TIMEOUT": "60", "PYTHONPATH": str(ROOT), **extra}
        if fault:
            env["DYNPATCH_FAULT_AT"] = fault
        return env

    def snapshot(self) -> dict[str, object]:
        """What must not change on a refusal: patches/, the pin, the checkout's refs, HEAD
        and status (and that no staging folder is left beside it)."""
        state: dict[str, object] = {
            "patches": _tree_bytes(self.patches),
            "pin": self.pin.read_bytes(),
        }
        if gitio.is_git_repo(self.checkout):
            state |= _repo_state(self.checkout)
        return state


def _tree_bytes(folder: Path) -> dict[str, bytes] | None:
    if not folder.is_dir():
        return None
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


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
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


def _build(tmp_path: Path, formatter_env: Path) -> World:
    vendor = tmp_path / "vendor"
    cache = vendor / "cache" / "wheels"
    cache.mkdir(parents=True)
    (vendor / "tools").symlink_to(formatter_env)
    wheel = cache / "ai_dynamo-9.9.9-py3-none-any.whl"
    digest = build_wheel(wheel, SYNTHETIC_FILES)
    pin = write_pin(vendor / "dynamo.toml", "9.9.9", wheel.name, digest)
    return World(tmp_path, vendor, pin, tmp_path / "patches", wheel)


@pytest.fixture
def world(tmp_path: Path, formatter_env: Path) -> World:
    return _build(tmp_path, formatter_env)


@pytest.fixture(scope="module")
def applied_once(tmp_path_factory: pytest.TempPathFactory, formatter_env: Path) -> World:
    world = _build(tmp_path_factory.mktemp("applied"), formatter_env)
    ok(world.run("apply"))
    return world


@pytest.fixture
def applied(applied_once: World, tmp_path: Path, formatter_env: Path) -> World:
    """The world after one good ``apply`` (a series in patches/ and a work branch): a copy
    of one made per module, as every test changes it."""
    shutil.copytree(applied_once.tmp, tmp_path, symlinks=True, dirs_exist_ok=True)
    return World(
        tmp_path,
        tmp_path / "vendor",
        tmp_path / "vendor" / "dynamo.toml",
        tmp_path / "patches",
        tmp_path / "vendor" / "cache" / "wheels" / applied_once.wheel.name,
    )


# --- 1. a broken pin, a refused identity, a kill: the checkout stays as it was ----------


def _replaced(old: str, new: str):
    return lambda pin: pin.write_text(pin.read_text().replace(old, new, 1))


@pytest.mark.parametrize(
    ("breaks", "needle"),
    [
        (_replaced("[upstream]", "[upstream"), "is malformed"),
        (_replaced('branch = "dynpatch/work"\n', ""), "is malformed: missing key 'branch'"),
        (
            _replaced('date = "2026-01-01T00:00:00+00:00"', 'date = "not a date"'),
            "[series] date 'not a date' is not an ISO 8601 date",
        ),
        (lambda pin: pin.write_bytes(b"\xff\xfe"), "is malformed: not UTF-8 text"),
        (lambda pin: pin.unlink() or pin.mkdir(), "cannot read the pin file"),
        (Path.unlink, "no vendor/dynamo.toml in"),
    ],
    ids=["syntax", "missing-key", "date", "not-utf8", "folder", "missing"],
)
def test_a_broken_pin_is_one_line_and_the_fixed_pin_just_works(
    applied: World, breaks, needle: str
) -> None:
    good = applied.pin.read_bytes()
    before = applied.snapshot()
    breaks(applied.pin)
    where = applied.pin if applied.pin.exists() else applied.tmp  # the file, or where it is not
    one_error(applied.run("apply"), needle, str(where))
    one_error(applied.run("pin", "runtime"), needle)  # what the noxfile asks
    if applied.pin.is_dir():
        applied.pin.rmdir()
    applied.pin.write_bytes(good)
    assert applied.snapshot() == before
    ok(applied.run("apply", "--check"))


@pytest.mark.parametrize(
    "author", [". <a@b.c>", "Jane\nDoe <j@example.invalid>", "Jane <j@example.invalid>\n", "nobody"]
)
def test_an_identity_git_would_refuse_is_refused_first(applied: World, author: str) -> None:
    before = applied.snapshot()
    one_error(applied.run("apply", "--author", author), "not an identity of the form")
    assert applied.snapshot() == before


def test_killed_after_the_commit_objects_the_checkout_is_as_before(applied: World) -> None:
    before = applied.snapshot()  # another author: a new commit and a new patch to write
    proc = applied.run(
        "apply", "--author", "Other Person <other@example.invalid>", fault="apply.objects"
    )
    assert proc.returncode == -signal.SIGKILL
    assert applied.snapshot() == before
    ok(applied.run("apply"))  # no --force needed: nothing of the dead run is in the way
    ok(applied.run("apply", "--check"))


@pytest.mark.parametrize("delay", [0.3, 0.8, 1.5])
def test_sigkill_of_the_process_group_at_any_moment(applied: World, delay: float) -> None:
    """A real kill -9 of the whole process group, at a moment nobody chose."""
    world = applied
    good = _tree_bytes(world.patches)
    world.patches.joinpath("series").write_text("stale\n")  # the run will rewrite patches/
    stale = _tree_bytes(world.patches)
    proc = subprocess.Popen(
        world.argv("apply"),
        env=world.env(),
        cwd=world.tmp,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    time.sleep(delay)
    with contextlib.suppress(ProcessLookupError):  # it may have finished
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _tree_bytes(world.patches) in (good, stale)  # before or after, never between
    ok(world.run("apply"))
    assert _tree_bytes(world.patches) == good
    assert not list(world.vendor.glob("checkouts/.*staging-*")), "dead run's staging removed"
    assert not list((world.vendor / "scratch").glob("apply-*"))


# --- 2. a commit the user added on the work branch is kept -----------------------------


def test_a_user_commit_on_the_work_branch_needs_force(applied: World) -> None:
    repo = applied.checkout
    tip = git(repo, "rev-parse", BRANCH).strip()
    mine = git(repo, "commit-tree", f"{tip}^{{tree}}", "-p", tip, "-m", "my own work").strip()
    git(repo, "update-ref", BRANCH, mine, tip)
    before = applied.snapshot()
    one_error(applied.run("apply"), "a commit this tool did not make", "--force")
    assert applied.snapshot() == before
    ok(applied.run("apply", "--force"))
    assert git(repo, "rev-parse", BRANCH).strip() == tip
    assert mine in git(repo, "reflog", "show", "--format=%H", BRANCH)  # still reachable


def test_the_work_branch_checked_out_is_never_moved(applied: World) -> None:
    repo = applied.checkout
    git(repo, "checkout", "-q", "dynpatch/work")
    git(repo, "reset", "-q", "--hard", "upstream/9.9.9")  # tip now the base: stale for apply
    before = applied.snapshot()
    one_error(applied.run("apply", "--force"), "dynpatch/work is checked out in")
    assert applied.snapshot() == before


# --- 3. the base is checked by commit id, not by tree ----------------------------------


def _move_tag(repo: Path) -> None:
    other = git(repo, "commit-tree", "upstream/9.9.9^{tree}", "-m", "same tree, other commit")
    git(repo, "tag", "-f", "upstream/9.9.9", other.strip())


@pytest.mark.parametrize(
    ("tamper", "needle"),
    [
        (_move_tag, "not the reproducible base"),
        (lambda repo: git(repo, "tag", "-d", "upstream/9.9.9"), "has no tag upstream/9.9.9"),
        (
            lambda repo: (repo / "components/src/dynamo/common/backend/logprobs.py").write_text(
                "# my experiment\n"
            ),
            "has local changes",
        ),
    ],
    ids=["tag-moved", "tag-deleted", "dirty"],
)
def test_a_tampered_checkout_is_kept_without_force_and_rebuilt_with_it(
    applied: World, tamper, needle: str
) -> None:
    """The base is checked by commit id, not by tree; the user's edits are never lost
    without --force."""
    tamper(applied.checkout)
    before = applied.snapshot()  # with the edit's diff: the edited text is kept
    one_error(applied.run("apply"), needle, "--force")
    assert applied.snapshot() == before
    ok(applied.run("apply", "--force"))  # rebuilt from the wheel
    assert _repo_state(applied.checkout)["status"] == ""
    ok(applied.run("apply", "--check"))


# --- 4. the git-source cache: keyed by URL and ref, verified before it is kept -------------


def _upstream_repo(where: Path, files_: dict[str, str]) -> Path:
    for rel, text in files_.items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_text(text)
    git(where, "init", "-q")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "release")
    git(where, "tag", "v9.9.9")
    return where


def _dynamo_files(extra: str = "") -> dict[str, str]:
    return {
        "components/src/dynamo/common/backend/logprobs.py": snippets.HELPER + extra,
        "components/src/dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER,
    }


def test_the_git_cache_is_per_url_and_records_it(world: World) -> None:
    a = _upstream_repo(world.tmp / "a", _dynamo_files())
    b = _upstream_repo(world.tmp / "b", _dynamo_files("# another fork\n"))
    out_a = ok(world.run("fetch", "--source", "git", "--url", f"file://{a}")).stdout
    out_b = ok(world.run("fetch", "--source", "git", "--url", f"file://{b}")).stdout
    assert f"Upstream: file://{a} v9.9.9" in out_a and f"Upstream: file://{b} v9.9.9" in out_b
    assert git(b, "rev-parse", "HEAD").strip() in out_b
    assert len(list(world.vendor.glob("checkouts/git-v9.9.9-*"))) == 2
    again = ok(world.run("fetch", "--source", "git", "--url", f"file://{a}")).stdout  # cached
    assert f"Upstream: file://{a} v9.9.9" in again and git(a, "rev-parse", "HEAD").strip() in again
    assert len(list(world.vendor.glob("checkouts/git-v9.9.9-*"))) == 2


def test_a_repository_that_is_not_dynamo_is_not_cached(world: World) -> None:
    other = _upstream_repo(world.tmp / "other", {"README.md": "not dynamo\n"})
    for _ in range(2):  # the second run must say the same, not reuse a bad cache
        one_error(
            world.run("apply", "--source", "git", "--url", f"file://{other}"),
            "has no components/src/dynamo/: not a dynamo tree",
        )
    assert not list(world.vendor.glob("checkouts/*"))  # pathlib's * takes dot names too
    assert not world.patches.exists()


def test_drift_names_every_problem_and_prints_the_table_it_points_to(world: World) -> None:
    drifted = dict(SYNTHETIC_FILES)
    drifted["dynamo/common/backend/logprobs.py"] = "def unrelated():\n    pass\n"
    drifted["dynamo/trtllm/request_handlers/handler_base.py"] = "class HandlerBase:\n    pass\n"
    world.pin.write_text(
        world.pin.read_text().replace(write_pin_sha(world), build_wheel(world.wheel, drifted))
    )
    proc = world.run("apply")
    one_error(proc, "more in the table above")
    assert "drifted" in proc.stdout and "target" in proc.stdout, proc.stdout  # the table


def write_pin_sha(world: World) -> str:
    for line in world.pin.read_text().splitlines():
        if line.startswith("sha256"):
            return line.split('"')[1]
    raise AssertionError("no sha256 in the pin")


# --- 5. no value from the user reaches git as an option ----------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--ref", "--upload-pack=touch pwned;"],
        ["--ref", "-c"],
        ["--url", "--upload-pack=touch pwned;"],
        ["--url", "ext::sh -c touch% pwned"],
        ["--ref", "v9.9.9 --upload-pack=touch pwned"],
    ],
)
def test_option_injection_is_refused_and_runs_nothing(world: World, args: list[str]) -> None:
    before = world.snapshot()
    one_error(world.run("fetch", "--source", "git", *args, "--timeout", "10"))
    assert not list(world.tmp.rglob("pwned")) and not (ROOT / "pwned").exists()
    assert world.snapshot() == before
    assert not list(world.vendor.glob("checkouts/*"))


# --- 6. no credential in any output or file ------------------------------------------------


def test_a_token_in_the_url_is_never_printed_or_written(world: World) -> None:
    url = "https://someone:SECRET-TOKEN@127.0.0.1:9/dynamo.git"
    proc = world.run("apply", "--source", "git", "--url", url, "--timeout", "10")
    line = one_error(proc, "cannot fetch v9.9.9 from https://127.0.0.1:9/dynamo.git")
    assert "SECRET" not in proc.stdout + proc.stderr + line
    for path in world.tmp.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert b"SECRET" not in path.read_bytes(), path


def test_a_token_in_the_pinned_url_stays_out_of_the_patch(world: World) -> None:
    world.pin.write_text(
        world.pin.read_text().replace(
            "https://example.invalid/dynamo", "https://someone:SECRET-TOKEN@example.invalid/dynamo"
        )
    )
    proc = ok(world.run("apply"))
    assert "SECRET" not in proc.stdout + proc.stderr
    patch = "".join(p.read_text() for p in world.patches.glob("*.patch"))
    assert "Upstream: https://example.invalid/dynamo v9.9.9" in patch and "SECRET" not in patch


# --- 7. no traceback: every OSError is one line naming the path ---------------------------


def test_patches_where_a_file_stands_is_one_line(world: World) -> None:
    world.patches.write_text("a file where the folder should be\n")
    before = world.snapshot()
    one_error(world.run("apply"), str(world.patches), "is not a folder")
    assert world.patches.read_text() == "a file where the folder should be\n"
    assert world.snapshot() == before


@contextlib.contextmanager
def immutable(path: Path, moves_within: Path | None = None):
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


def test_an_old_patches_folder_that_cannot_be_removed_warns_once(applied: World) -> None:
    """The new series is in: exit 0, one warning, and no later run is stopped by it."""
    good = _tree_bytes(applied.patches)
    series = applied.patches / "series"
    series.write_text("stale\n")
    with immutable(series, moves_within=applied.tmp):
        proc = ok(applied.run("apply"))
        assert _tree_bytes(applied.patches) == good
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("warning: cannot remove "), proc.stderr
        assert "Operation not permitted" in lines[0] and "remove it by hand" in lines[0]
        for later in (("--check",), ("--author", "Other Person <other@example.invalid>")):
            assert "warning" not in ok(applied.run("apply", *later)).stderr


def test_an_immutable_patches_folder_is_one_line_and_untouched(applied: World) -> None:
    (applied.patches / "series").write_text("stale\n")
    before = applied.snapshot()
    with immutable(applied.patches):
        line = one_error(applied.run("apply"), str(applied.patches))
    assert "Operation not permitted" in line
    assert applied.snapshot() == before
    assert not list(applied.tmp.glob(".patches.*"))


def test_an_immutable_checkouts_folder_is_one_line(world: World) -> None:
    checkouts = world.vendor / "checkouts"
    checkouts.mkdir()
    with immutable(checkouts):
        one_error(world.run("fetch"), str(checkouts), "Operation not permitted")
    assert not list(checkouts.iterdir())


def test_a_plain_file_at_the_checkout_path(world: World) -> None:
    world.checkout.parent.mkdir(parents=True)
    world.checkout.write_text("not a checkout\n")
    one_error(world.run("apply"), "is not a git repository", "--force")
    assert world.checkout.read_text() == "not a checkout\n"  # kept without --force
    ok(world.run("apply", "--force"))
    assert gitio.is_git_repo(world.checkout)


# --- 8. patches/ is replaced whole ------------------------------------------------------


def test_killed_while_replacing_patches_leaves_old_or_new_whole(applied: World) -> None:
    good = _tree_bytes(applied.patches)
    (applied.patches / "NOTES.md").write_text("mine\n")  # not part of the series: kept
    series = applied.patches / "series"
    series.write_text(series.read_text() + "\n")
    stale = _tree_bytes(applied.patches)
    proc = applied.run("apply", fault="patches.staged")
    assert proc.returncode == -signal.SIGKILL
    now = _tree_bytes(applied.patches)
    assert now == stale or now == {**(good or {}), "NOTES.md": b"mine\n"}
    ok(applied.run("apply"))
    assert _tree_bytes(applied.patches) == {**(good or {}), "NOTES.md": b"mine\n"}
    assert not list(applied.tmp.glob(".patches.*")), "no staging folder left beside patches/"


def test_the_two_rename_swap_is_recovered_after_a_kill(applied: World) -> None:
    """A kill between the renames leaves the old folder aside; the next run puts it back
    before doing anything else."""
    good = _tree_bytes(applied.patches)
    (applied.patches / "series").write_text("stale\n")
    proc = applied.run("apply", fault="swap.aside")
    assert proc.returncode == -signal.SIGKILL
    assert not applied.patches.exists() and list(applied.tmp.glob(".patches.previous-*"))
    ok(applied.run("apply"))
    assert _tree_bytes(applied.patches) == good
    assert not list(applied.tmp.glob(".patches.*"))


# --- 9. git's failures say what failed, and where ------------------------------------------


def test_git_reason_is_the_fatal_line_not_the_advice() -> None:
    stderr = (
        "fatal: Unable to create '/x/.git/index.lock': File exists.\n\n"
        "Another git process seems to be running in this repository, e.g.\n"
        "remove the file manually to continue.\n"
    )
    assert gitio.git_reason(stderr) == "Unable to create '/x/.git/index.lock': File exists."
    remote = (
        "fatal: 'nowhere' does not appear to be a git repository\n"
        "fatal: Could not read from remote repository.\n\n"
        "Please make sure you have the correct access rights\nand the repository exists.\n"
    )
    assert gitio.git_reason(remote) == "'nowhere' does not appear to be a git repository"


def test_a_stale_index_lock_in_the_checkout_does_not_stop_apply(applied: World) -> None:
    """apply writes the commit through a private index, so git's index lock in the
    checkout (left by a crashed git) is not in its way, and is left as it is."""
    lock = applied.checkout / ".git" / "index.lock"
    lock.write_text("")
    ok(applied.run("apply", "--author", "Other Person <other@example.invalid>"))
    assert lock.exists()


# --- 10. concurrent runs wait for each other, a bounded time ----------------------------------


def test_a_held_lock_makes_the_second_run_wait_then_say_who_holds_it(applied: World) -> None:
    before = applied.snapshot()
    with files.lock(series.lock(applied.vendor / "locks", applied.patches), "the test"):
        proc = applied.run(
            "apply", "--author", "Other Person <other@example.invalid>", DYNPATCH_LOCK_TIMEOUT="1"
        )
    one_error(proc, "another run holds", "waited 1 s")
    assert applied.snapshot() == before


@pytest.mark.parametrize("force", [(), ("--force",)])
def test_two_concurrent_applies_both_succeed(applied: World, force: tuple[str, ...]) -> None:
    (applied.patches / "series").write_text("stale\n")
    procs = [
        subprocess.Popen(
            applied.argv("apply", *force),
            env=applied.env(),
            cwd=applied.tmp,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0], [
        p.stderr and p.stderr.read() for p in procs
    ]
    ok(applied.run("apply", "--check"))


# --- 12. the user's own clone: nothing checked out, their branch never moved -----------------


def test_path_source_never_changes_the_users_checked_out_branch(world: World) -> None:
    clone = _upstream_repo(world.tmp / "clone", _dynamo_files())
    git(clone, "checkout", "-q", "-b", "my-topic")
    before = _repo_state(clone)
    ok(world.run("apply", "--source", "path", "--path", str(clone)))
    after = _repo_state(clone)
    assert after["head"] == before["head"] and after["status"] == before["status"] == ""
    assert git(clone, "rev-parse", "dynpatch/work~1") == git(clone, "rev-parse", "my-topic")
    git(clone, "checkout", "-q", "dynpatch/work")
    git(clone, "reset", "-q", "--hard", "my-topic")
    held = _repo_state(clone)
    one_error(world.run("apply", "--source", "path", "--path", str(clone)), "is checked out in")
    assert _repo_state(clone) == held


# --- 13. patches/ always match the pin -------------------------------------------------------


def test_apply_for_another_version_is_refused(applied: World) -> None:
    before = applied.snapshot()
    one_error(
        applied.run("apply", "--version", "9.9.8"),
        "is made against the pin (9.9.9)",
        "nox -s bump -- 9.9.8",
    )
    assert applied.snapshot() == before


# --- 14. what a killed run leaves is cleaned by the next ----------------------------------


def test_staging_of_a_killed_fetch_is_removed_by_the_next_run(world: World) -> None:
    proc = world.run("fetch", fault="fetch.staged")
    assert proc.returncode == -signal.SIGKILL
    assert list(world.vendor.glob("checkouts/.pypi-9.9.9.staging-*"))
    assert not world.checkout.exists()
    ok(world.run("fetch"))
    assert not list(world.vendor.glob("checkouts/.*"))
    assert gitio.is_git_repo(world.checkout)


def test_a_killed_download_leaves_nothing_the_next_run_keeps(world: World) -> None:
    """A download killed half-way: its scratch folder is removed by the next run, and the
    cache never holds a partial wheel (here pip is given a local index of the wheel)."""
    index = world.tmp / "index"
    index.mkdir()
    world.wheel.rename(index / world.wheel.name)
    pip_env = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(index)}
    proc = world.run("fetch", fault="download.partial", **pip_env)
    assert proc.returncode == -signal.SIGKILL
    assert list((world.vendor / "cache" / "wheels").glob(".download-*"))
    assert not world.wheel.exists()
    ok(world.run("fetch", **pip_env))
    assert world.wheel.is_file()
    assert not [p for p in (world.vendor / "cache" / "wheels").iterdir() if p.name.startswith(".")]


# --- cases that already held: kept so they keep holding --------------------------------------


def test_wrong_sha256_is_one_line_and_drops_the_bad_wheel(world: World) -> None:
    world.wheel.write_bytes(world.wheel.read_bytes()[:-10])  # truncated
    one_error(world.run("apply"), "sha256 mismatch")
    assert not world.wheel.exists() and not world.patches.exists()
    assert not world.checkout.exists()


def test_a_corrupt_wheel_with_the_pinned_sha256_is_one_line(world: World) -> None:
    world.wheel.write_bytes(b"PK\x03\x04 not really a zip")
    digest = pypi.sha256_of(world.wheel)
    world.pin.write_text(world.pin.read_text().replace(write_pin_sha(world), digest))
    one_error(world.run("apply"), "is not a readable wheel")
    assert not list(world.vendor.glob("checkouts/*"))


def test_unknown_version_is_one_line(world: World) -> None:
    one_error(world.run("fetch", "--version", "0.0.1"), "unknown version 0.0.1", "known: 9.9.9")


def test_an_unreachable_git_url_fails_within_the_timeout(world: World) -> None:
    start = time.monotonic()
    one_error(
        world.run(
            "fetch", "--source", "git", "--url", "file:///nonexistent/x.git", "--timeout", "10"
        ),
        "cannot fetch v9.9.9 from file:///nonexistent/x.git",
    )
    assert time.monotonic() - start < 30
    assert not list(world.vendor.glob("checkouts/*"))


def _edit_patch(patches: Path) -> None:
    patch = next(patches.glob("*.patch"))
    patch.write_text(patch.read_text().replace("perf(trtllm)", "perf(trtllm-edited)"))


@pytest.mark.parametrize(
    "edit",
    [_edit_patch, lambda patches: (patches / "series").write_text("0002-missing.patch\n")],
    ids=["hand-edited", "missing-file"],
)
def test_a_stale_series_fails_the_check_and_is_kept(applied: World, edit) -> None:
    edit(applied.patches)
    before = applied.snapshot()
    one_error(applied.run("apply", "--check"), "is stale: regenerate")
    assert applied.snapshot() == before


@pytest.mark.parametrize("problem", ["dirty", "not-git", "missing", "not-top", "no-path"])
def test_path_source_problems_are_one_line(world: World, problem: str) -> None:
    clone = _upstream_repo(world.tmp / "clone", _dynamo_files())
    target = clone
    if problem == "dirty":
        (clone / "components/src/dynamo/common/backend/logprobs.py").write_text("edited\n")
    elif problem == "not-git":
        target = world.tmp / "plain"
        (target / "components/src/dynamo").mkdir(parents=True)
    elif problem == "missing":
        target = world.tmp / "nowhere"
    else:
        target = clone / "components"
    before = _repo_state(clone)
    path = () if problem == "no-path" else ("--path", str(target))
    one_error(world.run("apply", "--source", "path", *path))
    assert _repo_state(clone) == before
    assert not world.patches.exists()


def test_a_broken_pin_through_nox_is_the_same_one_line(tmp_path: Path) -> None:
    """The noxfile never parses the pin: listing sessions works with a broken one, and a
    session that needs the pinned version ends in the toolkit's own error line."""
    copy = tmp_path / "toolkit"
    tracked = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for rel in filter(None, tracked):
        if (ROOT / rel).is_file():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, copy / rel)
    pin = copy / "vendor" / "dynamo.toml"
    pin.write_text(pin.read_text().replace("[upstream]", "[upstream", 1))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DYNPATCH_", "NOX"))}
    listed = subprocess.run(
        [sys.executable, "-m", "nox", "-l"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0 and "test-upstream" in listed.stdout, listed.stderr
    direct = subprocess.run(
        [sys.executable, "-m", "dynpatch", "pin", "runtime"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
    )
    expected = one_error(direct, "is malformed")
    proc = subprocess.run(
        [sys.executable, "-m", "nox", "-s", "test-upstream"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]  # nox's own status for a failed session
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output, output[-3000:]
    errors = [ln for ln in output.splitlines() if ln.startswith("error: ")]
    assert errors == [expected]
