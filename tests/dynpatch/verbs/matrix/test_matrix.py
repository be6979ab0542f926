"""`matrix` on one world of synthetic releases (offline): one run of every kind of row with
its reasons, the newest build trusted on first use; one release's real CPU tests, cached;
each release through ``prepare``; bad input as one line; and one run on real releases.
The repo's own pin and patches/ are never touched."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
from pathlib import Path
from unittest import mock

import pytest

from dynpatch import cli, releases
from dynpatch.errors import ToolkitError
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from dynpatch.io import pypi
from dynpatch.series import series_digest
from dynpatch.services import export as apply
from dynpatch.services import precommit
from dynpatch.services.checks import FAIL, NOT_RUN, PASS
from dynpatch.verbs.matrix import release
from dynpatch.workspace import Workspace
from tests.fixtures.releases import (
    APPLIES,
    DRIFTED,
    FIXED_UPSTREAM,
    IS_NONE_GUARD,
    LOOKS_FIXED,
    MERGED,
    NO_HELPER,
    Vendor,
    fake_runtime,
    make_vendor,
    this_interpreter,
    wheel,
)
from tests.fixtures.replay import release_files
from tests.fixtures.synthetic import REPO, SYNTHETIC_FILES, one_error, write_files
from tests.fixtures.upstream_fixes import variant
from tests.fixtures.upstream_tree import FILES as TESTED

SKIP_CHECKS = ("--skip", "test-upstream", "--skip", "verify")
# The synthetic releases have neither of the test modules the series adds tests to.
APPLIED = ["applied"] * 3 + ["not-applicable"] * 2
DEV = "10.1.0.dev1"  # the newest build on PyPI: not in the pin


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Vendor:
    """Every kind of synthetic release, pinned at 9.9.9; 9.9.5 has tests of its own. The
    tests share it (prepare and matrix only read the checkouts), each with its own --out."""
    root = tmp_path_factory.mktemp("world")
    releases = {"9.9.5": TESTED, "9.9.6": DRIFTED, "9.9.7": NO_HELPER, "9.9.8": IS_NONE_GUARD}
    releases |= {"9.9.9": APPLIES, "10.0.0": FIXED_UPSTREAM, "10.0.1": LOOKS_FIXED}
    v = make_vendor(root, releases, pinned="9.9.9")
    (root / "pypi").mkdir()
    wheel(root / "pypi", DEV, MERGED)  # a build that merged this very series
    return v


def newest_on_pypi(monkeypatch: pytest.MonkeyPatch, built: Path) -> None:
    """PyPI's newest build is the wheel ``built``."""

    def download(package: str, dest: Path, timeout: float = 600) -> Path:
        return Path(shutil.copy(built, dest / built.name))

    monkeypatch.setattr(pypi, "download_newest_wheel", download)


def matrix(ws: Workspace, out: Path, *extra: str) -> int:
    """The command line, in ``ws``'s root."""
    with contextlib.chdir(ws.root):
        return cli.main(["matrix", "--out", str(out), *extra])


def rows_of(out: Path) -> dict[str, dict]:
    return {r["version"]: r for r in json.loads((out / "matrix.json").read_text())["rows"]}


def test_every_kind_of_release_gets_a_row_with_its_reasons(
    world: Vendor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    this_interpreter(monkeypatch)  # 10.0.0's and 10.0.1's own fixes are judged by a run
    newest_on_pypi(monkeypatch, world.ws.root / "pypi" / f"ai_dynamo-{DEV}-py3-none-any.whl")
    out = tmp_path / "out"
    stale = out / "releases" / "9.9.6" / "patches"
    stale.mkdir(parents=True)
    (stale / "series").write_text("0001-old.patch\n")  # an older run's series
    checkout = fetch(world.pin, world.ws)

    def objects() -> list[Path]:
        return sorted((checkout.path / ".git" / "objects").rglob("*"))

    before = objects(), gitio.rev_parse(checkout.path, world.pin.branch)
    codemods, ams = [], []
    real_series, real_am = apply.run_series, gitio.am
    monkeypatch.setattr(apply, "run_series", lambda *a: codemods.append(1) or real_series(*a))
    monkeypatch.setattr(gitio, "am", lambda *a: ams.append(a[0]) or real_am(*a))
    versions = ["9.9.6", "9.9.7", "9.9.8", "9.9.9", "10.0.0", "10.0.1"]
    asked = ",".join(versions).replace(",", ", ", 1) + ",9.9.6"  # spaces and repeats: once each
    assert matrix(world.ws, out, "--versions", asked, "--newest", *SKIP_CHECKS) == 1
    printed = capsys.readouterr().out
    rows = rows_of(out)
    assert list(rows) == [*versions, DEV]  # in the order asked, the newest last
    # each series made once; git am: the committed series on each release, and the proof
    # of each export (9.9.8, 9.9.9)
    assert (len(codemods), len(ams)) == (7, 7 + 2)
    # the shared checkout is only read: no branch moved, no object, no file
    assert (objects(), gitio.rev_parse(checkout.path, world.pin.branch)) == before
    assert gitio.local_changes(checkout.path) == []

    # the messages' texts are the codemods' and the judge's (their own tests pin them)
    drifted, na, old_shape, pinned = (rows[v] for v in ("9.9.6", "9.9.7", "9.9.8", "9.9.9"))
    assert [o["status"] for o in drifted["outcomes"]][:3] == ["applied", "drifted", "applied"]
    assert drifted["problems"][0].endswith("found parameters (output, cursor)")
    # nothing exported for a drifted release: never a partial series, nor an older one
    assert drifted["own_am"]["status"] == drifted["verify"]["status"] == "not run"
    assert not stale.exists()
    assert {o["status"] for o in na["outcomes"]} == {"not-applicable"}
    assert na["test_upstream"]["status"] == na["verify"]["status"] == "n/a"
    assert old_shape["series"] == "applied" and old_shape["own_am"]["status"] == "pass"
    # the committed series (made on 9.9.9) does not apply as-is where the context differs
    assert (
        "patch failed: components/src/dynamo/common/backend/logprobs.py:"
        in (old_shape["committed_am"]["detail"])
    )
    assert pinned["pinned"] and pinned["committed_am"]["status"] == "pass"
    assert pinned["series_sha256"] == series_digest(world.ws.patches)  # regenerated == committed
    # skipped checks are shown as skipped, never as passed
    assert pinned["test_upstream"]["status"] == pinned["verify"]["status"] == "skipped"

    fixed, looks, merged = rows["10.0.0"], rows["10.0.1"], rows[DEV]
    assert fixed["series"] == "fixed-upstream" and fixed["problems"] == []
    detail = fixed["series_detail"]
    assert detail.startswith("by a keyword of its own (extract_from_completion_output takes")
    assert detail.endswith("and their ids and logprobs equal those of the series")
    assert [o["status"] for o in fixed["outcomes"]] == ["fixed-upstream"] * 3 + APPLIED[3:]
    assert fixed["own_am"]["status"] == fixed["test_upstream"]["status"] == "n/a"
    assert not (out / "releases" / "10.0.0" / "patches").exists()
    # the same kind of candidate, but the run sees each chunk read its history
    assert (
        looks["series"] == "drifted"
        and "read 1 token id(s) outside its delta" in looks["problems"][0]
    )
    assert merged["series"] == "already-applied" and merged["newest"]
    assert merged["trust"] == releases.TOFU and "trusted on first use" in merged["note"]

    md = (out / "matrix.md").read_text()
    assert "| 9.9.6 | applied | DRIFTED | applied |" in md
    assert "| 9.9.7 | n/a | n/a | n/a | n/a | n/a | n/a | no | n/a | n/a |" in md
    assert "| 9.9.9 (pin) | applied | applied | applied | n/a | n/a | yes | yes | skipped |" in md
    assert "| 10.0.0 | fixed upstream | fixed upstream | fixed upstream | n/a | n/a | n/a |" in md
    assert f"| {DEV} (newest, TOFU sha256) | already |" in md
    assert "- 9.9.6: DRIFTED: components/src/dynamo/trtllm/request_handlers/handler_base.py" in md
    assert "- 9.9.7: not applicable: " in md
    assert "- 9.9.8: committed series does not apply as-is: 0001-" in md
    assert "- 10.0.0: fixed upstream: by a keyword of its own (extract_from_completion_outp" in md
    assert "- 9.9.6: DRIFTED: not fixed another way either, by a run of its code: chunk 1 " in md
    assert "- 10.0.1: DRIFTED: upstream's own fix? by a keyword of its own (extract_from" in md
    assert f"- {DEV}: already applied: the series is merged upstream" in md
    data = json.loads((out / "matrix.json").read_text())
    assert data["ok"] is False and data["pinned"] == "9.9.9"
    assert data["summary"].startswith(
        "7 releases: 2 applied, 1 not applicable, 2 drifted, 1 fixed upstream, 1 merged "
        "upstream; problems in 9.9.6, 10.0.1"
    )
    assert md.rstrip().endswith("    " + data["summary"]) and md.rstrip() in printed
    assert "fixed upstream from 10.0.0: the series can be retired from 10.0.0 on" in printed
    assert f"merged upstream from {DEV}: the series can be retired from {DEV} on" in printed


def test_the_checks_run_per_release_and_are_cached(
    world: Vendor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    this_interpreter(monkeypatch)
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site", "9.9.5")))
    # the newest on PyPI is the pinned 9.9.5: its row is marked, not doubled
    newest_on_pypi(monkeypatch, world.ws.wheels / "ai_dynamo-9.9.5-py3-none-any.whl")
    out = tmp_path / "out"
    args = ("--versions", "9.9.5", "--skip", "verify")
    assert matrix(world.ws, out, *args, "--newest") == 0
    (row,) = rows_of(out).values()
    assert row["newest"] and row["trust"] == releases.PINNED
    check = row["test_upstream"]
    assert check["status"] == "pass" and not check["cached"]
    assert "carried tests: 3 fail on baseline, 3 pass on patched" in check["detail"]
    # what the stage would print is its log; no evidence record anywhere
    log = (out / "releases" / "9.9.5" / "test-upstream.log").read_text()
    assert "dynamo's own tests, CPU tier" in log and "verdict: pass" in log
    assert not list(tmp_path.rglob("evidence")) and not list(world.ws.root.rglob("evidence"))

    assert matrix(world.ws, out, *args) == 0  # warm: same wheel, series, code: reused
    assert rows_of(out)["9.9.5"]["test_upstream"]["cached"] is True
    assert "| pass (cached) | skipped |" in capsys.readouterr().out
    cache = (out / "releases" / "9.9.5" / "checks.json").read_text()

    # --fresh runs it again: with another runtime than the tree's, the stage refuses
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site-1", "1.0.0")))
    assert matrix(world.ws, out, *args, "--fresh") == 1
    check = rows_of(out)["9.9.5"]["test_upstream"]
    assert check["status"] == "error" and not check["cached"]
    assert check["detail"].startswith("pin mismatch: the tree is ai-dynamo 9.9.5")
    assert (out / "releases" / "9.9.5" / "checks.json").read_text() == cache  # errors not kept

    no_env = mock.Mock(side_effect=ToolkitError("pip install ai-dynamo-runtime: disk full"))
    monkeypatch.setattr(release.envs, "release_python", no_env)  # its own error is shown
    assert matrix(world.ws, out, *args) == 1
    assert rows_of(out)["9.9.5"]["test_upstream"]["detail"].endswith(": disk full")


def prepare(v: Vendor, out: Path, version: str) -> release.Row:
    candidate = releases.ReleaseCandidate(v.pin.release(version), releases.PINNED)
    ctx = release.Context(pin=v.pin, ws=v.ws, out=out, budget=0, seed=0)
    return release.prepare(candidate, ctx, lambda text: None)[0]


def test_an_export_failing_git_am_or_upstreams_checks_is_a_row(
    world: Vendor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # apply_series' own proof (the committed series' check in run is the real one)
    with monkeypatch.context() as m:
        m.setattr(apply, "am_problem", lambda *a: "0001-x.patch: patch failed: a.py:1")
        row = prepare(world, tmp_path / "out", "9.9.9")
    assert row.series == "applied" and not row.series_sha256 and not row.runnable
    assert row.own_am.status == FAIL and row.own_am.detail == "0001-x.patch: patch failed: a.py:1"
    assert row.test_upstream.status == NOT_RUN and row.committed_am.status == PASS
    assert not (tmp_path / "out" / "releases" / "9.9.9" / "patches").exists()

    finding = (precommit.Finding("flake8", "logprobs.py", 3, "E501"),)
    real = precommit.check_files
    planted = lambda *a: [  # noqa: E731
        dataclasses.replace(h, findings=finding) if h.hook == "flake8" else h for h in real(*a)
    ]
    monkeypatch.setattr(precommit, "check_files", planted)
    row = prepare(world, tmp_path / "out", "9.9.9")
    assert row.series == "error" and "flake8 (upstream settings)" in row.series_detail
    assert [o["status"] for o in row.outcomes] == APPLIED  # outcomes kept
    assert row.own_am.status == NOT_RUN and not row.ok


def test_bad_inputs_are_one_line(world: Vendor, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"

    def error_of(ws: Workspace, *extra: str) -> str:
        assert matrix(ws, out, *extra) == 2
        return one_error(capsys.readouterr().err)

    assert error_of(world.ws, "--versions", "9.9.9,0.0.1").startswith(
        'error: unknown version 0.0.1: dynamo.toml has no [releases."0.0.1"] entry'
    )
    for given in (("--version", "9.9.5", "--versions", "9.9.9"), ("--version", "9.9.9")):
        assert error_of(world.ws, *given) == (  # never silently one release or another
            "error: --version is the runtime's release beside --source git or path; the "
            "releases on PyPI are --versions"
        )
    assert error_of(world.ws, "--jobs", "0") == "error: --jobs must be 1 or more"
    assert error_of(world.ws, "--budget", "-1") == "error: --budget must be 0 or more, not -1"
    empty = Workspace(tmp_path / "empty")
    empty.pin.parent.mkdir(parents=True)
    shutil.copy(world.pin.path, empty.pin)
    assert error_of(empty) == f"error: no patch series in {empty.patches}: run `nox -s apply` first"
    assert not out.exists()


def _upstream(root: Path, files: dict[str, str]) -> Path:
    """A git repository in dynamo's layout holding ``files`` (wheel layout) on main."""
    write_files(root, {f"components/src/{path}": text for path, text in files.items()})
    gitio.init_repo_with_commit(
        root, "main", gitio.Identity("U", "u@example.invalid"), "2026-12-01T00:00:00+00:00", "v0"
    )
    return root


def test_a_ref_of_main_or_a_clone_is_one_row_judged_like_a_release(
    world: Vendor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """main fixed by the one-line alternative: fixed upstream, with how; a clone that keeps
    a look-alike copy (a tuple of the history): drifted, with the chunk and the count."""
    this_interpreter(monkeypatch)
    fixed = _upstream(
        tmp_path / "main", {**SYNTHETIC_FILES, **release_files(*variant("one-liner"))}
    )
    out = tmp_path / "out-git"
    url = f"file://{fixed}"
    assert (
        matrix(world.ws, out, "--source", "git", "--url", url, "--ref", "main", *SKIP_CHECKS) == 0
    )
    printed = capsys.readouterr().out
    [row] = rows_of(out).values()
    assert row["series"] == "fixed-upstream" and row["version"] == "9.9.9"
    assert row["series_detail"].startswith(
        "by the one-line alternative, no keyword: the series can be retired"
    )
    assert (
        "9.9.9 (git main)" in printed
        and f"9.9.9: git {url} at main, with ai-dynamo-runtime 9.9.9" in printed
    )
    assert "fixed upstream from 9.9.9: the series can be retired" in printed
    clone = _upstream(
        tmp_path / "clone",
        {**SYNTHETIC_FILES, **release_files(*variant("tuple-kept-for-the-cursor-check"))},
    )
    out = tmp_path / "out-path"
    assert matrix(world.ws, out, "--source", "path", "--path", str(clone), *SKIP_CHECKS) == 1
    [row] = rows_of(out).values()
    assert row["series"] == "drifted"
    assert row["problems"][0].startswith("upstream's own fix? by a keyword of its own (")
    assert (
        ": chunk 1 of stream 1-choice-one-token-top1 read 1 token id(s) outside its delta"
        in row["problems"][0]
    )
    assert (
        matrix(world.ws, out, "--source", "path", "--path", str(clone), "--versions", "9.9.9") == 2
    )
    assert "--versions and --newest are for the releases on PyPI" in capsys.readouterr().err


# --- real releases ------------------------------------------------------------------


@pytest.mark.integration
def test_a_real_release_gives_the_expected_row(tmp_path: Path) -> None:
    """1.3.1 (the `is None` guard): every target of the fix applied, the tests not carried
    (it has neither dynamo's sentinel nor its TestGenerateLocally); its own series applies
    with git am, the committed one (made on 1.6.1) does not. The pinned release's series is
    checked against patches/ by test_export.py."""
    out = tmp_path / "out"
    assert matrix(REPO, out, "--versions", "1.3.1", "--no-newest", *SKIP_CHECKS) == 0
    row = rows_of(out)["1.3.1"]
    assert [o["status"] for o in row["outcomes"]] == APPLIED
    assert row["own_am"]["status"] == "pass" and row["committed_am"]["status"] == "fail"
