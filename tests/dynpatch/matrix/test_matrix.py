"""`matrix` through the command line: on synthetic releases (offline), one row per release
with its reasons, the stages' results cached, bad input as one line; and one integration
test on real cached releases. The repo's own pin and patches/ are never touched."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import pytest

from dynpatch import cli
from dynpatch import matrix as command
from dynpatch.errors import ToolkitError
from dynpatch.io import pypi
from dynpatch.matrix import releases
from dynpatch.pin import load_pin
from dynpatch.series import series_digest
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
from tests.fixtures.synthetic import REPO
from tests.fixtures.upstream_tree import FILES as STAGE_FILES

SKIP_CHECKS = ("--skip", "test-upstream", "--skip", "verify")


def matrix(ws: Workspace, out: Path, *extra: str) -> int:
    """The command line, in ``ws``'s root."""
    with contextlib.chdir(ws.root):
        return cli.main(["matrix", "--out", str(out), *extra])


def rows_of(out: Path) -> dict[str, dict]:
    return {r["version"]: r for r in json.loads((out / "matrix.json").read_text())["rows"]}


@pytest.fixture(scope="module")
def every(tmp_path_factory: pytest.TempPathFactory) -> Vendor:
    """One workspace with every kind of synthetic release, pinned at 9.9.9; the tests that
    only read it share it (and its checkouts), each with its own --versions and --out."""
    releases = {"9.9.6": DRIFTED, "9.9.7": NO_HELPER, "9.9.8": IS_NONE_GUARD, "9.9.9": APPLIES}
    releases |= {"10.0.0": FIXED_UPSTREAM, "10.0.1": LOOKS_FIXED, "10.0.2": MERGED}
    return make_vendor(tmp_path_factory.mktemp("every"), releases, pinned="9.9.9")


@pytest.fixture(scope="module")
def stage_vendor(tmp_path_factory: pytest.TempPathFactory) -> Vendor:
    """A release whose own tests run, pinned."""
    return make_vendor(tmp_path_factory.mktemp("stage"), {"9.9.9": STAGE_FILES}, pinned="9.9.9")


def test_each_release_gets_a_row_with_reasons(every: Vendor, tmp_path: Path, capsys) -> None:
    v = every
    out = tmp_path / "out"
    versions = ("--versions", "9.9.6,9.9.7,9.9.8,9.9.9")
    stale = out / "releases" / "9.9.6" / "patches"
    stale.mkdir(parents=True)
    (stale / "series").write_text("0001-old.patch\n")  # an older run's series
    assert matrix(v.ws, out, *versions, *SKIP_CHECKS) == 1  # a drifted release fails the run
    printed = capsys.readouterr().out
    rows = rows_of(out)
    assert list(rows) == ["9.9.6", "9.9.7", "9.9.8", "9.9.9"]

    drifted = rows["9.9.6"]
    assert drifted["series"] == "drifted"
    assert [o["status"] for o in drifted["outcomes"]][:3] == ["applied", "drifted", "applied"]
    assert drifted["problems"] == [
        "components/src/dynamo/trtllm/request_handlers/handler_base.py: "
        "HandlerBase._extract_logprobs: expected a method (output, num_output_tokens_so_far) "
        "whose body is `return <module>.extract_from_completion_output(output, "
        "num_output_tokens_so_far, ...)`; found parameters (output, cursor)"
    ]
    # nothing exported for a drifted release: never a partial series
    assert drifted["own_am"]["status"] == drifted["verify"]["status"] == "not run"
    assert not stale.exists()
    assert "9.9.6: DRIFTED: components/src/dynamo/trtllm/request_handlers/handler_base.py" in (
        printed
    )

    na = rows["9.9.7"]
    assert na["series"] == "not-applicable"
    assert {o["status"] for o in na["outcomes"]} == {"not-applicable"}
    assert "no shared logprob helper module (releases <= 1.2.1)" in na["series_detail"]
    assert na["test_upstream"]["status"] == na["verify"]["status"] == "n/a"

    old_shape = rows["9.9.8"]
    assert old_shape["series"] == "applied" and old_shape["guard"] == "output.logprobs is None"
    assert old_shape["own_am"]["status"] == "pass"
    assert old_shape["own_am"]["detail"] == "applies and reverses"
    # the committed series (made on 9.9.9) does not apply as-is where the context differs
    assert old_shape["committed_am"]["status"] == "fail"
    assert (
        "patch failed: components/src/dynamo/common/backend/logprobs.py:"
        in (old_shape["committed_am"]["detail"])
    )

    pinned = rows["9.9.9"]
    assert pinned["pinned"] and pinned["committed_am"]["status"] == "pass"
    assert pinned["series_sha256"] == series_digest(v.patches)  # regenerated == committed
    # skipped checks are shown as skipped, never as passed
    assert pinned["test_upstream"]["status"] == pinned["verify"]["status"] == "skipped"

    md = (out / "matrix.md").read_text()
    assert "| 9.9.6 | `not getattr` | applied | DRIFTED | applied |" in md
    assert "| 9.9.7 | - | n/a | n/a | n/a | n/a | n/a | n/a | no | n/a | n/a |" in md
    assert "| 9.9.9 (pin) | `not getattr` | applied | applied | applied |" in md
    assert "| yes | yes | skipped | skipped |" in md


def test_no_drift_exits_zero(every: Vendor, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert matrix(every.ws, out, "--versions", "9.9.7,9.9.9", *SKIP_CHECKS) == 0
    data = json.loads((out / "matrix.json").read_text())
    assert data["ok"] is True and data["pinned"] == "9.9.9"
    assert data["summary"].startswith("2 releases: 1 applied, 1 not applicable, 0 drifted")
    assert (out / "matrix.md").read_text().rstrip().endswith("    " + data["summary"])
    assert "wrote " in capsys.readouterr().out


def test_a_release_fixed_upstream_is_judged_by_running_it(
    every: Vendor, tmp_path, monkeypatch, capsys
) -> None:
    this_interpreter(monkeypatch)
    v = every
    out = tmp_path / "out"
    versions = "9.9.9,10.0.0,10.0.1,10.0.2"
    assert matrix(v.ws, out, "--versions", versions, *SKIP_CHECKS) == 1
    printed = capsys.readouterr().out
    rows = rows_of(out)
    fixed, looks, merged = rows["10.0.0"], rows["10.0.1"], rows["10.0.2"]
    assert fixed["series"] == "fixed-upstream" and fixed["problems"] == []
    assert fixed["series_detail"] == (
        "extract_from_completion_output takes `delta_ids`; HandlerBase._generate_locally_impl "
        "passes `delta_ids=output.token_ids[tokens_so_far:]` to self._extract_logprobs, which "
        "forwards it; run: 345 chunks of 11 streams read no token id outside their delta and "
        "equal those without `delta_ids` (of which 0 read the history)"
    )
    statuses = [o["status"] for o in fixed["outcomes"]]
    assert statuses == ["fixed-upstream"] * 3 + ["not-applicable"] * 2
    assert fixed["own_am"]["status"] == fixed["test_upstream"]["status"] == "n/a"
    assert not (out / "releases" / "10.0.0" / "patches").exists()
    # the same kind of candidate, but the run sees each chunk read its history
    assert looks["series"] == "drifted"
    assert looks["problems"][0] == (
        "upstream's own fix? extract_from_completion_output takes `delta`; "
        "HandlerBase._generate_locally_impl passes `delta=chunk` to "
        "extract_from_completion_output: with `delta` given, chunk 1 of stream "
        "1-choice-one-token-top1 read 1 token id(s) outside its delta, of a history of 1 "
        "(281 chunks did, 6041 token ids in all)"
    )
    assert merged["series"] == "already-applied"
    md = (out / "matrix.md").read_text()
    assert (
        "| 10.0.0 | `not getattr` | fixed upstream | fixed upstream | fixed upstream | n/a | n/a "
        "| n/a | no | n/a | n/a |"
    ) in md
    assert "- 10.0.0: fixed upstream: extract_from_completion_output takes `delta_ids`" in md
    assert "- 10.0.1: DRIFTED: upstream's own fix? extract_from_completion_output takes" in md
    assert "- 10.0.2: already applied: the series is merged upstream" in md
    data = json.loads((out / "matrix.json").read_text())
    assert data["summary"].startswith(
        "4 releases: 1 applied, 0 not applicable, 1 drifted, 1 fixed upstream, 1 merged "
        "upstream; problems in 10.0.1"
    )
    assert "10.0.0: DRIFTED" not in printed
    assert "fixed upstream from 10.0.0: the series can be retired from 10.0.0 on" in printed
    assert "merged upstream from 10.0.2: the series can be retired from 10.0.2 on" in printed


def test_list_json_prints_the_releases_and_runs_nothing(tmp_path: Path, capsys) -> None:
    v = make_vendor(tmp_path, {"9.9.8": IS_NONE_GUARD, "9.9.9": APPLIES}, pinned="9.9.9")
    out = tmp_path / "out"

    def listed(**kw) -> list[str]:
        result = command.run(command.MatrixOptions(out=out, list_json=True, **kw), v.ws)
        assert result.ok and len(result.shown) == 1
        return json.loads(str(result.shown[0]))

    shutil.rmtree(v.patches)  # no series needed

    assert listed() == ["9.9.8", "9.9.9"]  # the pin's [matrix] (newest = false)
    assert listed(newest=True) == ["9.9.8", "9.9.9", "newest"]
    assert listed(versions="9.9.9", newest=True) == ["9.9.9", "newest"]
    assert listed(all=True, newest=False) == ["9.9.8", "9.9.9"]
    # Each entry, handed back as --versions, is what one job of the fan-out runs.
    assert listed(versions="newest") == ["newest"]
    assert listed(versions="9.9.8", newest=False) == ["9.9.8"]
    assert not out.exists()  # nothing ran, nothing written (and no series needed)
    with pytest.raises(ToolkitError, match=r"unknown version 0\.0\.1"):
        listed(versions="0.0.1")
    v.pin.path.write_text(
        v.pin.path.read_text().replace('versions = ["9.9.8", "9.9.9"]', "versions = []")
    )
    with pytest.raises(
        ToolkitError, match=r"^no releases to list: the pin's \[matrix\] names none$"
    ):
        listed()  # a CI fan-out of no job is refused, not an empty list


def test_all_adds_every_wheel_on_the_index_from_all_from_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    v = make_vendor(tmp_path, {"9.9.7": NO_HELPER, "9.9.9": APPLIES}, pinned="9.9.9")
    text = v.pin.path.read_text().replace(
        "newest = false\n", 'newest = false\nall_from = "9.9.8"\n'
    )
    v.pin.path.write_text(text)
    # What PyPI's index lists: the pinned 9.9.9, an older 9.9.6, a dev build after 9.9.9
    # (its wheel is in the cache, as a download would put it) and a binary-only wheel.
    dev = "9.10.0.dev20260101"
    name, digest = wheel(v.ws.wheels, dev, APPLIES)
    listing = {
        v.pin.release("9.9.9").wheel: v.pin.release("9.9.9").sha256,
        "ai_dynamo-9.9.6-py3-none-any.whl": "00" * 32,
        name: digest,
        f"ai_dynamo-{dev}-cp311-cp311-linux_x86_64.whl": "11" * 32,
    }
    asked: list[str] = []
    monkeypatch.setattr(pypi, "list_wheels", lambda package: asked.append(package) or listing)
    out = tmp_path / "out"
    assert matrix(v.ws, out, "--all", "--list-json") == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == ["9.9.7", "9.9.9", dev]
    assert not v.ws.tofu.exists()  # listing trusts nothing yet

    assert matrix(v.ws, out, "--all", *SKIP_CHECKS) == 0
    rows = rows_of(out)
    assert list(rows) == ["9.9.7", "9.9.9", dev]  # the pin's 9.9.7 stays (n/a)
    assert rows[dev]["trust"] == releases.TOFU and rows[dev]["sha256"] == digest
    assert rows[dev]["series"] == "applied" and rows[dev]["own_am"]["status"] == "pass"
    assert rows["9.9.9"]["trust"] == releases.PINNED
    assert asked == ["ai-dynamo", "ai-dynamo"]
    # without --all nothing is asked of the index
    assert matrix(v.ws, out, *SKIP_CHECKS) == 0 and len(asked) == 2


def test_test_upstream_runs_per_release_and_is_cached(
    stage_vendor: Vendor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    this_interpreter(monkeypatch)
    v = stage_vendor
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site", "9.9.9")))
    out = tmp_path / "out"
    args = ("--skip", "verify")
    assert matrix(v.ws, out, *args) == 0
    check = rows_of(out)["9.9.9"]["test_upstream"]
    assert check["status"] == "pass" and not check["cached"]
    assert "carried tests: 10 fail on baseline, 10 pass on patched" in check["detail"]
    # what the stage would print is its log; no evidence record anywhere
    log = (out / "releases" / "9.9.9" / "test-upstream.log").read_text()
    assert "dynamo's own tests, CPU tier" in log and "verdict: pass" in log
    assert not list(tmp_path.rglob("evidence")) and not list(v.ws.root.rglob("evidence"))

    assert matrix(v.ws, out, *args) == 0  # warm: same wheel, series, code: reused
    assert rows_of(out)["9.9.9"]["test_upstream"]["cached"] is True
    assert "pass (cached)" in capsys.readouterr().out
    assert matrix(v.ws, out, *args, "--fresh") == 0
    assert rows_of(out)["9.9.9"]["test_upstream"]["cached"] is False


def test_a_failing_check_fails_the_run(stage_vendor: Vendor, tmp_path: Path, monkeypatch) -> None:
    this_interpreter(monkeypatch)
    v = stage_vendor
    # the runtime the interpreter offers is not the tree's: the stage refuses (error)
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site", "1.0.0")))
    out = tmp_path / "out"
    assert matrix(v.ws, out, "--skip", "verify") == 1
    check = rows_of(out)["9.9.9"]["test_upstream"]
    assert check["status"] == "error"
    assert check["detail"].startswith("pin mismatch: the tree is ai-dynamo 9.9.9")
    assert not (out / "releases" / "9.9.9" / "checks.json").exists()  # errors not cached


def test_bad_inputs_are_one_line(tmp_path: Path, capsys) -> None:
    v = make_vendor(tmp_path, {"9.9.9": APPLIES}, pinned="9.9.9")
    out = tmp_path / "out"

    def error_of(*extra: str) -> str:
        assert matrix(v.ws, out, *extra) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), lines
        return lines[0]

    assert error_of("--versions", "0.0.1").startswith(
        'error: unknown version 0.0.1: dynamo.toml has no [releases."0.0.1"] entry'
    )
    assert error_of("--jobs", "0") == "error: --jobs must be 1 or more"
    assert (
        error_of("--all", "--versions", "9.9.9") == "error: --all and --versions exclude each other"
    )
    assert error_of("--budget", "-1") == "error: --budget must be 0 or more, not -1"
    assert not out.exists()
    shutil.rmtree(v.patches)
    assert error_of() == f"error: no patch series in {v.patches}: run `nox -s apply` first"


def test_which_releases_run() -> None:
    pin = load_pin(REPO.pin)
    assert command._versions(command.MatrixOptions(), pin) == list(pin.matrix)
    picked = command.MatrixOptions(versions="1.6.1, 1.5.1,1.6.1")
    assert command._versions(picked, pin) == ["1.6.1", "1.5.1"]  # once each, in that order
    every = command._versions(command.MatrixOptions(all=True), pin)
    assert every == sorted(pin.releases, key=releases.version_key) and every[-1] == "1.6.1"
    pinned = releases.pinned(pin, ["1.5.1", "1.6.1"])
    newest = releases.ReleaseCandidate(pin.release("1.6.1"), releases.PINNED, newest=True)
    assert command._with_newest(pinned, newest) == [pinned[0], newest]  # marked, not twice
    later = releases.ReleaseCandidate(releases.release_for(pin, "9.0.0", "ab"), releases.TOFU, True)
    assert command._with_newest(pinned, later) == [*pinned, later]


# --- real releases ------------------------------------------------------------------


@pytest.mark.integration
def test_real_releases_give_the_expected_rows(tmp_path: Path) -> None:
    """1.2.1: not applicable; 1.3.1 (`is None` guard) and 1.5.1 on: every target of the
    fix applied (the tests too from 1.5.1; 1.3.1 has neither dynamo's sentinel nor its
    TestGenerateLocally, so they are not carried), the own series applies with git am; the
    pinned release's series equals patches/."""
    out = tmp_path / "out"
    assert (
        matrix(REPO, out, "--versions", "1.2.1,1.3.1,1.5.1,1.6.1", "--no-newest", *SKIP_CHECKS) == 0
    )
    rows = rows_of(out)
    assert {o["status"] for o in rows["1.2.1"]["outcomes"]} == {"not-applicable"}
    guards = (("1.3.1", 'getattr(output, "logprobs", None) is None'), ("1.5.1", "not getattr("))
    tests = {"1.3.1": ["not-applicable"] * 2, "1.5.1": ["applied"] * 2}
    for version, guard in guards:
        row = rows[version]
        assert [o["status"] for o in row["outcomes"]] == ["applied"] * 3 + tests[version]
        assert row["guard"].startswith(guard)
        assert row["own_am"]["status"] == "pass"
    assert rows["1.3.1"]["committed_am"]["status"] == "fail"
    assert rows["1.6.1"]["committed_am"]["status"] == "pass"
    assert rows["1.6.1"]["series_sha256"] == series_digest(REPO.patches)
