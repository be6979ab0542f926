"""`matrix` on synthetic releases (offline), its building blocks, and one integration test
on real cached releases. The repo's own pin and patches/ are never touched."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from dynpatch import cli, pinfile
from dynpatch.errors import ToolkitError
from dynpatch.evidence import series_digest
from dynpatch.fetch import checkout_dir
from dynpatch.io import git as gitio
from dynpatch.io import pypi
from dynpatch.patch.apply import PATCHES
from dynpatch.pin import PIN_FILE, Release, load_pin
from dynpatch.releases.matrix import envs, releases, run
from tests.fixtures.releases import (
    APPLIES,
    DRIFTED,
    IS_NONE_GUARD,
    NO_HELPER,
    fake_runtime,
    make_vendor,
    wheel,
)
from tests.fixtures.upstream_tree import FILES as STAGE_FILES

SKIP_CHECKS = ("--skip", "test-upstream", "--skip", "verify")


@pytest.fixture(autouse=True)
def repo_pin_and_patches_untouched():
    """Every test here must leave the repository's own pin and patches/ as they were."""
    before = PIN_FILE.read_bytes(), {p.name: p.read_bytes() for p in PATCHES.iterdir()}
    yield
    after = PIN_FILE.read_bytes(), {p.name: p.read_bytes() for p in PATCHES.iterdir()}
    assert after == before


def matrix(v, out: Path, *extra: str) -> int:
    return cli.main(
        [
            "matrix", "--pin", str(v.pin.path), "--vendor", str(v.vendor),
            "--patches", str(v.patches), "--out", str(out), *extra,
        ]
    )  # fmt: skip


def rows_of(out: Path) -> dict[str, dict]:
    return {r["version"]: r for r in json.loads((out / "matrix.json").read_text())["rows"]}


def test_each_release_gets_a_row_with_reasons(tmp_path: Path, capsys) -> None:
    v = make_vendor(
        tmp_path,
        {"9.9.6": DRIFTED, "9.9.7": NO_HELPER, "9.9.8": IS_NONE_GUARD, "9.9.9": APPLIES},
        pinned="9.9.9",
    )
    out = tmp_path / "out"
    assert matrix(v, out, *SKIP_CHECKS) == 1  # a drifted release fails the run
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
    assert drifted["own_am"]["status"] == "not run"
    assert not (out / "releases" / "9.9.6" / "patches").exists()
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
    # the shared checkouts were not committed on: the series is made in throwaway clones
    for version in ("9.9.6", "9.9.7", "9.9.8"):
        checkout = checkout_dir(v.vendor, "pypi", version)
        assert gitio.rev_parse(checkout, v.pin.branch) is None
        assert gitio.local_changes(checkout) == []


def test_no_drift_exits_zero(tmp_path: Path, capsys) -> None:
    v = make_vendor(tmp_path, {"9.9.7": NO_HELPER, "9.9.9": APPLIES}, pinned="9.9.9")
    out = tmp_path / "out"
    assert matrix(v, out, *SKIP_CHECKS) == 0
    data = json.loads((out / "matrix.json").read_text())
    assert data["ok"] is True and data["pinned"] == "9.9.9"
    assert data["summary"].startswith("2 releases: 1 applied, 1 not applicable, 0 drifted")
    assert "wrote " in capsys.readouterr().out


def test_test_upstream_runs_per_release_and_is_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    v = make_vendor(tmp_path, {"9.9.9": STAGE_FILES}, pinned="9.9.9")
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site", "9.9.9")))
    out = tmp_path / "out"
    args = ("--skip", "verify", "--python", sys.executable)
    assert matrix(v, out, *args) == 0
    check = rows_of(out)["9.9.9"]["test_upstream"]
    assert check["status"] == "pass" and not check["cached"]
    assert "new regression tests: 14 fail on baseline, 14 pass on patched" in check["detail"]
    # the stage's evidence went under the release's folder, not out/evidence/
    record = json.loads(
        (out / "releases" / "9.9.9" / "evidence" / "test-upstream.json").read_text()
    )
    assert record["series_sha256"] == series_digest(out / "releases" / "9.9.9" / "patches")

    assert matrix(v, out, *args) == 0  # warm: same wheel, series, code: reused
    assert rows_of(out)["9.9.9"]["test_upstream"]["cached"] is True
    assert "pass (cached)" in capsys.readouterr().out
    assert matrix(v, out, *args, "--fresh") == 0
    assert rows_of(out)["9.9.9"]["test_upstream"]["cached"] is False


def test_a_failing_check_fails_the_run(tmp_path: Path, monkeypatch, capsys) -> None:
    v = make_vendor(tmp_path, {"9.9.9": STAGE_FILES}, pinned="9.9.9")
    # the runtime the interpreter offers is not the tree's: the stage refuses (error)
    monkeypatch.setenv("PYTHONPATH", str(fake_runtime(tmp_path / "site", "1.0.0")))
    out = tmp_path / "out"
    assert matrix(v, out, "--skip", "verify", "--python", sys.executable) == 1
    check = rows_of(out)["9.9.9"]["test_upstream"]
    assert check["status"] == "error"
    assert check["detail"].startswith("pin mismatch: the tree is ai-dynamo 9.9.9")
    assert not (out / "releases" / "9.9.9" / "checks.json").exists()  # errors not cached


def test_bad_inputs_are_one_line(tmp_path: Path, capsys) -> None:
    v = make_vendor(tmp_path, {"9.9.9": APPLIES}, pinned="9.9.9")
    out = tmp_path / "out"

    def error_of(*extra: str) -> str:
        assert matrix(v, out, *extra) == 2
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
    gone = tmp_path / "gone"
    assert cli.main(["matrix", "--pin", str(v.pin.path), "--patches", str(gone)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: no committed series in {gone}: run `nox -s apply` first"
    )


# --- building blocks ----------------------------------------------------------------


def test_newest_is_trusted_on_first_use_then_held_to_it(tmp_path: Path, monkeypatch) -> None:
    v = make_vendor(tmp_path, {"9.9.9": APPLIES}, pinned="9.9.9")
    builds = tmp_path / "pypi"
    builds.mkdir()
    served = {"files": APPLIES}

    def fake_download(package: str, dest: Path, timeout: float = 600) -> Path:
        name, _ = wheel(builds, "9.10.0.dev20260101", served["files"])
        return Path(shutil.copy(builds / name, dest / name))

    monkeypatch.setattr(pypi, "download_newest_wheel", fake_download)
    cache, tofu = tmp_path / "cache", tmp_path / "tofu"
    first = releases.newest(v.pin, cache, tofu)
    assert first.trust == releases.TOFU and first.newest
    assert first.release.version == "9.10.0.dev20260101"
    assert first.release.tag == "(dev build: no git tag)"
    recorded = json.loads((tofu / "ai-dynamo-9.10.0.dev20260101.json").read_text())
    assert recorded["sha256"] == first.release.sha256
    assert first.note == (
        f"sha256 {first.release.sha256} is not in the pin: trusted on first use (recorded "
        f"now, {recorded['recorded']}, in ai-dynamo-9.10.0.dev20260101.json); later runs must "
        "match it"
    )
    second = releases.newest(v.pin, tmp_path / "cache2", tofu)
    assert second.release == first.release
    assert second.note.endswith(
        "trust on first use, recorded "
        + recorded["recorded"]
        + " in ai-dynamo-9.10.0.dev20260101.json; this download matches it"
    )

    served["files"] = {**APPLIES, "dynamo/extra.py": "x = 1\n"}  # PyPI now serves other bytes
    with pytest.raises(ToolkitError, match=r"now gives sha256 .* but the first use on"):
        releases.newest(v.pin, tmp_path / "cache3", tofu)

    # the stages get a pin that lists it (the real pin file is not changed)
    derived = load_pin(releases.derived_pin(v.pin, [first], tmp_path / "pin.toml"))
    assert derived.release("9.10.0.dev20260101").sha256 == first.release.sha256
    assert "9.10.0.dev20260101" not in load_pin(v.pin.path).releases


def test_an_error_below_verify_from_is_declared_unsupported() -> None:
    pin = load_pin(PIN_FILE)
    assert pin.matrix_verify_from == "1.6.0"
    error = run.Check(run.ERROR, "baseline replay refused to run: ...")
    assert run.declared("verify", "1.5.1", pin, error).status == run.UNSUPPORTED
    assert "verify_from = '1.6.0'" in run.declared("verify", "1.5.1", pin, error).detail
    assert run.declared("verify", "1.6.0", pin, error).status == run.ERROR
    assert run.declared("test-upstream", "1.5.1", pin, error).status == run.ERROR
    fail = run.Check(run.FAIL, "divergence")  # a divergence is never softened
    assert run.declared("verify", "1.3.1", pin, fail).status == run.FAIL


def test_version_order() -> None:
    versions = ["1.7.0.dev20261026", "1.2.1", "1.3.0.post1", "1.10.0", "1.7.0", "1.3.1"]
    assert sorted(versions, key=releases.version_key) == [
        "1.2.1", "1.3.0.post1", "1.3.1", "1.7.0.dev20261026", "1.7.0", "1.10.0",
    ]  # fmt: skip


def test_pin_edits_keep_comments_and_refuse_conflicts(tmp_path: Path) -> None:
    text = PIN_FILE.read_text()
    new = Release("9.9.9", "v9.9.9", "ai_dynamo-9.9.9-py3-none-any.whl", "ab" * 32, "cd" * 20)
    edited = pinfile.with_version(pinfile.with_release(text, new, "added by a test"), "9.9.9")
    assert edited.count("\n# ") == text.count("\n# ") + 1  # every comment kept, one added
    path = tmp_path / "dynamo.toml"
    path.write_text(edited)
    pin = load_pin(path)
    assert pin.version == "9.9.9" and pin.release("9.9.9") == new
    assert pin.matrix == load_pin(PIN_FILE).matrix  # the tables after [releases] survive
    # the new table sits after the last release, before [layout] and its comment
    assert edited.index('[releases."9.9.9"]') < edited.index("# hatch maps")
    # an entry that is already there must say the same
    assert pinfile.with_release(edited, new) == edited
    other = Release("9.9.9", "v9.9.9", new.wheel, "ef" * 32, "")
    with pytest.raises(ToolkitError, match="refusing to replace it"):
        pinfile.with_release(edited, other)
    # a recorded-without-tree entry gets its tree
    bare = Release("9.9.9", "v9.9.9", new.wheel, new.sha256, "")
    filled = pinfile.with_release(pinfile.with_release(text, bare), new)
    path.write_text(filled)
    assert load_pin(path).release("9.9.9").tree == new.tree


def test_runtime_env_puts_the_release_runtime_first(tmp_path: Path, monkeypatch) -> None:
    """The per-release interpreter sees its own runtime's metadata and this environment's
    packages (pip is replaced by a fake that lays out a runtime's dist-info)."""

    def fake_install(requirement: str, target: Path, timeout: float = 1200) -> None:
        version = requirement.split("==")[1]
        fake_runtime(target, version)
        (target / "dynamo").mkdir()
        (target / "dynamo" / "marker_runtime.py").write_text(f"VERSION = {version!r}\n")

    monkeypatch.setattr(pypi, "pip_install_target", fake_install)
    env = envs.runtime_env("9.9.9", tmp_path / "runtimes")
    assert env.python.is_file()
    code = (
        "import importlib.metadata as m, dynamo.marker_runtime as r, libcst;"
        "print(m.version('ai-dynamo-runtime'), r.VERSION)"
    )
    import subprocess

    shown = subprocess.run([str(env.python), "-c", code], capture_output=True, text=True)
    assert shown.stdout.split() == ["9.9.9", "9.9.9"], shown.stderr
    again = envs.runtime_env("9.9.9", tmp_path / "runtimes")  # reused, not rebuilt
    assert again == env


# --- real releases ------------------------------------------------------------------


@pytest.mark.integration
def test_real_releases_give_the_expected_rows(tmp_path: Path) -> None:
    """1.2.1: not applicable; 1.3.1 (`is None` guard) and 1.5.1 on: every target applied,
    the own series applies with git am; the pinned release's series equals patches/."""
    out = tmp_path / "out"
    code = cli.main(
        ["matrix", "--versions", "1.2.1,1.3.1,1.5.1,1.6.1", "--no-newest", "--out", str(out),
         *SKIP_CHECKS]
    )  # fmt: skip
    assert code == 0
    rows = rows_of(out)
    assert {o["status"] for o in rows["1.2.1"]["outcomes"]} == {"not-applicable"}
    guards = (("1.3.1", 'getattr(output, "logprobs", None) is None'), ("1.5.1", "not getattr("))
    for version, guard in guards:
        row = rows[version]
        assert [o["status"] for o in row["outcomes"]] == ["applied"] * 5
        assert row["guard"].startswith(guard)
        assert row["own_am"]["status"] == "pass"
    assert rows["1.3.1"]["committed_am"]["status"] == "fail"
    assert rows["1.6.1"]["committed_am"]["status"] == "pass"
    assert rows["1.6.1"]["series_sha256"] == series_digest(PATCHES)
