"""One release through the series (``prepare``): the series made and proved once, the
shared checkout only read, and each way the series can end up as a row; plus the row's
building blocks (a stage's result, the helper's guard)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from dynpatch.apply import export as apply
from dynpatch.fetch import fetch
from dynpatch.io import git as gitio
from dynpatch.matrix import release, releases
from dynpatch.matrix.stages import ERROR, FAIL, NOT_RUN, PASS, Check
from dynpatch.pin import load_pin
from dynpatch.series import series_digest
from dynpatch.workspace import Workspace
from tests.fixtures import snippets
from tests.fixtures.releases import APPLIES, IS_NONE_GUARD, Vendor, make_vendor
from tests.fixtures.synthetic import REPO

# the synthetic releases have no helper test module: that test-carrying step does not apply
# The synthetic release has neither of the test modules the series adds tests to.
APPLIED = ["applied", "applied", "applied", "not-applicable", "not-applicable"]


@pytest.fixture(scope="module")
def vendor(tmp_path_factory: pytest.TempPathFactory) -> Vendor:
    """Shared by the tests: prepare only reads the checkout (the first test proves it)."""
    releases = {"9.9.8": IS_NONE_GUARD, "9.9.9": APPLIES}
    return make_vendor(tmp_path_factory.mktemp("release"), releases, pinned="9.9.9")


def prepare(v: Vendor, out: Path, version: str) -> release.Row:
    candidate = releases.pinned(v.pin, [version])[0]
    ctx = release.Context(pin=v.pin, ws=v.ws, out=out, budget=0, seed=0)
    return release.prepare(candidate, ctx, lambda text: None)[0]


def objects(repo: Path) -> list[Path]:
    return sorted(p for p in (repo / ".git" / "objects").rglob("*") if p.is_file())


def test_the_series_is_made_and_proved_once_and_the_checkout_only_read(
    vendor: Vendor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = fetch(vendor.pin, vendor.ws, version="9.9.8")
    before = objects(checkout.path)
    codemods, ams = [], []
    real_series, real_am = apply.run_series, gitio.am
    monkeypatch.setattr(apply, "run_series", lambda *a: codemods.append(1) or real_series(*a))
    monkeypatch.setattr(gitio, "am", lambda *a: ams.append(a[0]) or real_am(*a))

    row = prepare(vendor, tmp_path / "out", "9.9.8")
    assert len(codemods) == 1
    assert len(ams) == 2  # the export's proof and the committed series' check, once each
    assert row.series == "applied" and row.own_am.status == PASS
    assert row.own_am.detail == "applies and reverses"
    assert [o["status"] for o in row.outcomes] == APPLIED
    assert row.committed_am.status == FAIL  # made on 9.9.9: its context differs
    patches = tmp_path / "out" / "releases" / "9.9.8" / "patches"
    assert row.series_sha256 == series_digest(patches)
    # no work branch, no object, no file: concurrent releases may share the checkout
    assert gitio.rev_parse(checkout.path, vendor.pin.branch) is None
    assert objects(checkout.path) == before
    assert gitio.local_changes(checkout.path) == []


def test_an_export_failing_git_am_fails_the_own_am_column(
    vendor: Vendor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # apply_series' own proof (the committed series' check in run is the real one)
    monkeypatch.setattr(apply, "am_problem", lambda *a: "0001-x.patch: patch failed: a.py:1")
    row = prepare(vendor, tmp_path / "out", "9.9.9")
    assert row.series == "applied" and not row.series_sha256
    assert row.own_am.status == FAIL
    assert row.own_am.detail == "0001-x.patch: patch failed: a.py:1"
    assert row.test_upstream.status == NOT_RUN and not row.runnable
    assert row.committed_am.status == PASS
    assert [o["status"] for o in row.outcomes] == APPLIED
    assert not (tmp_path / "out" / "releases" / "9.9.9" / "patches").exists()


def test_an_error_while_making_the_series_is_a_row(
    vendor: Vendor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        apply.precommit.linters,
        "flake8",
        lambda *a: [apply.Finding("flake8", "logprobs.py", 3, "E501")],
    )
    row = prepare(vendor, tmp_path / "out", "9.9.9")
    assert row.series == "error" and "flake8 (upstream settings)" in row.series_detail
    assert [o["status"] for o in row.outcomes] == APPLIED  # outcomes kept
    assert row.own_am.status == NOT_RUN


def test_an_error_of_verify_is_an_error_on_every_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No release is declared beyond the replay's reach any more: an error of verify on an
    # old release is reported as it is, fails the row, and is not cached.
    pin = load_pin(REPO.pin)
    ctx = release.Context(pin=pin, ws=Workspace(tmp_path), out=tmp_path / "out", budget=0, seed=0)
    seen = {"test-upstream": Check(PASS, "ok"), "verify": Check(ERROR, "refused to run: ...")}
    monkeypatch.setattr(release, "run_check", lambda stage, job, screen: (seen[stage], None))
    row = release.Row(
        version="1.3.1", sha256="ab", trust="pinned", series="applied", own_am=Check(PASS)
    )
    checkout: Any = object()
    release.check(row, ctx, checkout, tmp_path / "python", Console(quiet=True))
    assert row.verify == Check(ERROR, "refused to run: ...") and not row.ok
    cached = (ctx.folder("1.3.1") / "checks.json").read_text()
    assert '"test-upstream"' in cached and '"verify"' not in cached


def test_helper_guard() -> None:
    assert release.helper_guard(snippets.HELPER_IS_NONE_GUARD) == "output.logprobs is None"
    assert release.helper_guard(snippets.HELPER).startswith("not getattr(output")
    assert release.helper_guard(None) == "-"
    assert release.helper_guard("def (:\n") == "does not parse"
