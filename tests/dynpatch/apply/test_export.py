"""apply_series end to end: on synthetic releases (offline) and on the real pin."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codemods.series import COMMIT_MESSAGE
from dynpatch.apply import export as apply
from dynpatch.apply.export import SeriesFailed, am_problem, apply_series, read_at
from dynpatch.errors import ToolkitError
from dynpatch.fetch import fetch, materialise_pypi
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin
from tests.fixtures import snippets
from tests.fixtures.synthetic import REAL_CACHE, REPO, SYNTHETIC_FILES

AUTHOR = gitio.parse_identity("Test Author <test@example.invalid>")


def run_apply(rel, patches: Path, **kwargs):
    checkout = fetch(rel.pin, rel.ws)
    report = apply_series(
        checkout,
        author=AUTHOR,
        date=rel.pin.date,
        branch=rel.pin.branch,
        cache=REAL_CACHE,  # shares the cached upstream formatter env
        patches_dir=patches,
        **kwargs,
    )
    return checkout, report


def test_apply_exports_a_signed_series_with_provenance(synthetic_release, tmp_path) -> None:
    rel = synthetic_release()
    patches = tmp_path / "patches"
    checkout, report = run_apply(rel, patches)
    assert report.patches == (patches / "series").read_text().split()
    patch = (patches / report.patches[0]).read_text()
    assert report.patches[0].startswith("0001-perf-trtllm-")
    assert "Subject: [PATCH] perf(trtllm): " in patch
    assert "\nSigned-off-by: Test Author <test@example.invalid>\n" in patch
    assert f"sha256 {rel.pin.pinned.sha256}" in patch  # provenance
    assert f"base-commit: {checkout.base}" in patch
    assert "+    new_token_ids: Optional[Sequence[int]] = None," in patch
    # The message is the series' own: nothing is appended to it.
    message = patch.split("Subject: [PATCH] ", 1)[1].split("\nSigned-off-by:", 1)[0]
    assert message.rstrip() == COMMIT_MESSAGE.rstrip()
    assert report.lines["extract_from_completion_output"][0] > 0
    # the work branch holds the commit, and the checkout is left clean
    assert gitio.rev_parse(checkout.path, rel.pin.branch) == report.commit
    assert gitio.local_changes(checkout.path) == []


def test_second_apply_changes_nothing_and_check_passes(synthetic_release, tmp_path) -> None:
    rel = synthetic_release()
    patches = tmp_path / "patches"
    _, first = run_apply(rel, patches)
    before = {p.name: p.read_bytes() for p in patches.iterdir()}
    _, second = run_apply(rel, patches)
    assert second.changed_files == [] and second.commit == first.commit
    assert {p.name: p.read_bytes() for p in patches.iterdir()} == before
    run_apply(rel, patches, check=True)  # does not raise


def test_check_detects_a_stale_series_and_touches_nothing(synthetic_release, tmp_path) -> None:
    rel = synthetic_release()
    patches = tmp_path / "patches"
    _, report = run_apply(rel, patches)
    stale = patches / report.patches[0]
    stale.write_text(stale.read_text().replace("perf(trtllm)", "perf(trtllm-old)"))
    edited = stale.read_text()
    with pytest.raises(ToolkitError, match=r"patches/0001-.*\.patch is stale: regenerate"):
        run_apply(rel, patches, check=True)
    assert stale.read_text() == edited


def test_drifted_source_fails_and_writes_nothing(synthetic_release, tmp_path) -> None:
    files = dict(SYNTHETIC_FILES)
    files["dynamo/trtllm/request_handlers/handler_base.py"] = snippets.HANDLER.replace(
        "output, tokens_so_far\n", "output, so_far\n"
    )
    rel = synthetic_release(files)
    patches = tmp_path / "patches"
    with pytest.raises(
        ToolkitError, match=r"HandlerBase\._generate_locally_impl: expected .*so_far"
    ):
        run_apply(rel, patches)
    assert not patches.exists()
    checkout = fetch(rel.pin, rel.ws)
    assert gitio.local_changes(checkout.path) == []
    assert gitio.rev_parse(checkout.path, rel.pin.branch) is None  # no work branch made


def test_not_applicable_release_reports_and_writes_nothing(synthetic_release, tmp_path) -> None:
    rel = synthetic_release(
        {"dynamo/trtllm/request_handlers/handler_base.py": snippets.HANDLER_INLINE}
    )
    patches = tmp_path / "patches"
    _, report = run_apply(rel, patches)
    assert report.result.not_applicable
    assert report.patches == [] and not patches.exists()


def test_series_applies_with_git_am_to_a_fresh_materialisation(synthetic_release, tmp_path) -> None:
    rel = synthetic_release()
    patches = tmp_path / "patches"
    checkout, report = run_apply(rel, patches)
    fresh = tmp_path / "fresh"
    materialise_pypi(rel.pin, rel.pin.pinned, fresh, rel.wheel.parent)
    gitio.am(fresh, [patches / n for n in report.patches])
    helper = "components/src/dynamo/common/backend/logprobs.py"
    assert (fresh / helper).read_text() == read_at(checkout.path, report.commit, helper)
    gitio.reverse_applies(fresh, [patches / n for n in report.patches])


def test_branch_none_exports_and_leaves_the_checkout_as_it_was(synthetic_release, tmp_path) -> None:
    """What the matrix and bump use: the series made once into patches_dir, the checkout
    only read (no work branch, no object), so concurrent runs may share it."""
    rel = synthetic_release()
    checkout = fetch(rel.pin, rel.ws)
    objects = sorted(p for p in (checkout.path / ".git" / "objects").rglob("*") if p.is_file())
    patches = tmp_path / "patches"
    report = apply.export_series(checkout, rel.pin, REAL_CACHE, patches)
    assert report.patches == (patches / "series").read_text().split()
    assert report.timings["git am check"] > 0  # proved, in the same run
    assert gitio.rev_parse(checkout.path, rel.pin.branch) is None
    assert sorted(p for p in (checkout.path / ".git" / "objects").rglob("*") if p.is_file()) == (
        objects
    )
    assert gitio.local_changes(checkout.path) == []
    # the same bytes as a normal apply, which does commit on the work branch
    _, applied = run_apply(rel, tmp_path / "applied")
    assert applied.commit == report.commit
    assert {p.name: p.read_bytes() for p in patches.iterdir()} == {
        p.name: p.read_bytes() for p in (tmp_path / "applied").iterdir()
    }


def test_drift_raises_with_every_outcome(synthetic_release, tmp_path) -> None:
    files = dict(SYNTHETIC_FILES)
    files["dynamo/trtllm/request_handlers/handler_base.py"] = snippets.HANDLER.replace(
        "output, tokens_so_far\n", "output, so_far\n"
    )
    with pytest.raises(SeriesFailed) as drift:
        run_apply(synthetic_release(files), tmp_path / "drifted")
    assert not drift.value.proof and not drift.value.report.result.ok
    assert len(drift.value.report.outcomes) == 5


def test_a_failed_proof_raises_with_every_outcome(synthetic_release, tmp_path, monkeypatch):
    rel = synthetic_release()
    monkeypatch.setattr(apply, "am_problem", lambda *a: "0001-x.patch: patch failed: a.py:1")
    patches = tmp_path / "patches"
    with pytest.raises(
        SeriesFailed, match=r"fails the git am proof on upstream/9\.9\.9: 0001-x"
    ) as no:
        run_apply(rel, patches)
    assert no.value.proof == "0001-x.patch: patch failed: a.py:1"
    assert no.value.report.result.ok and no.value.report.outcomes
    assert not patches.exists()  # nothing installed, and no work branch moved
    assert gitio.rev_parse(fetch(rel.pin, rel.ws).path, rel.pin.branch) is None


def test_am_problem_names_the_patch_and_file(synthetic_release, tmp_path) -> None:
    rel = synthetic_release()
    patches = tmp_path / "patches"
    checkout, report = run_apply(rel, patches)
    series = [patches / n for n in report.patches]
    assert am_problem(checkout, series, tmp_path / "good") == ""
    helper = "components/src/dynamo/common/backend/logprobs.py"
    assert (tmp_path / "good" / helper).read_text() == read_at(checkout.path, report.commit, helper)
    lines = series[0].read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("@@ ")) + 1
    lines[at] = " # a context line upstream does not have\n"
    series[0].write_text("".join(lines))
    problem = am_problem(checkout, series, tmp_path / "bad")
    assert problem.startswith(f"{series[0].name}: patch failed: {helper}:"), problem


# --- the real pinned release (fetched from PyPI once, cached under vendor/) ------------


@pytest.fixture(scope="module")
def real_checkout():
    return fetch(load_pin(REPO.pin), REPO)


@pytest.mark.integration
def test_real_pin_regenerates_exactly_the_committed_patches(real_checkout) -> None:
    pin = load_pin(REPO.pin)
    report = apply_series(
        real_checkout,
        author=gitio.parse_identity(pin.author),
        date=pin.date,
        branch=pin.branch,
        cache=REAL_CACHE,
        patches_dir=REPO.patches,
        check=True,
    )
    assert report.patches == (REPO.patches / "series").read_text().split()
    assert all(o.ok for o in report.outcomes)
    # upstream's whole pre-commit is green on today's series, every touched file checked
    assert [r.hook for r in report.hooks] == HOOKS and all(r.ok for r in report.hooks)
    patch = (REPO.patches / report.patches[0]).read_text()
    touched = sorted(set(re.findall(r"^\+\+\+ b/(\S+)$", patch, re.MULTILINE)))
    assert list(report.hooks[0].checked) == touched


@pytest.mark.integration
def test_committed_series_applies_to_a_freshly_materialised_pin(tmp_path) -> None:
    pin = load_pin(REPO.pin)
    cache = tmp_path / "wheels"
    cache.mkdir()
    cached = REAL_CACHE / "wheels" / pin.pinned.wheel
    if cached.is_file():  # the same bytes PyPI serves; sha256 is re-checked either way
        shutil.copy(cached, cache)
    fresh = tmp_path / "fresh"
    base = materialise_pypi(pin, pin.pinned, fresh, cache)
    assert gitio.tree_of(fresh, base) == pin.pinned.tree
    patches = [REPO.patches / n for n in (REPO.patches / "series").read_text().split()]
    gitio.am(fresh, patches)
    gitio.reverse_applies(fresh, patches)


@pytest.mark.integration
def test_dynamo_logprob_tests_pass_on_the_patched_tree(real_checkout, tmp_path) -> None:
    """dynamo's own test_logprobs.py on the patched source, proving which file ran."""
    if os.environ.get("DYNPATCH_REQUIRE_UPSTREAM_RUNTIME") != "1":
        pytest.importorskip("dynamo._core", reason="ai-dynamo-runtime not installed")
    patched = tmp_path / "patched"
    committed = [REPO.patches / n for n in (REPO.patches / "series").read_text().split()]
    assert am_problem(real_checkout, committed, patched) == ""  # patched: the applied tree
    src = patched / "components/src"
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "which_logprobs.py").write_text(
        textwrap.dedent(
            """
            import os, sys
            def pytest_sessionfinish(session):
                mod = sys.modules.get("dynamo.common.backend.logprobs")
                with open(os.environ["WHICH_LOGPROBS"], "w") as fh:
                    fh.write(getattr(mod, "__file__", "") or "")
            """
        )
    )
    ini = tmp_path / "pytest.ini"
    ini.write_text("[pytest]\nmarkers =\n  unit\n  gpu_0\n  core\n  pre_merge\n")
    which = tmp_path / "which.txt"
    test_file = src / "dynamo/common/backend/tests/test_logprobs.py"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(test_file),
            "-c",
            str(ini),
            f"--rootdir={tmp_path}",
            "--import-mode=importlib",
            "-p",
            "no:cacheprovider",
            "-p",
            "which_logprobs",
            "-q",
        ],
        env={**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{probe}", "WHICH_LOGPROBS": str(which)},
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    summary = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0, proc.stdout[-3000:]
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|skipped)", summary)}
    # 36 passed, 3 skipped upstream; the series may add its own regression tests.
    assert counts.get("passed", 0) >= 36 and counts.get("skipped") == 3, summary
    assert "failed" not in counts and "error" not in summary, summary
    assert Path(which.read_text()) == src / "dynamo/common/backend/logprobs.py"
    assert "new_token_ids" in Path(which.read_text()).read_text()


# --- upstream's pre-commit: every hook on the touched files and the commits -------------

HELPER = "components/src/dynamo/common/backend/logprobs.py"
HANDLER = "components/src/dynamo/trtllm/request_handlers/handler_base.py"
HOOKS = ["isort", "black", "flake8", "ruff", "codespell", "SPDX header", "DCO"]


def test_the_clean_series_passes_every_hook(synthetic_release, tmp_path) -> None:
    tests = "dynamo/trtllm/tests/test_trtllm_handler_base.py"
    files = {**SYNTHETIC_FILES, tests: snippets.HANDLER_TESTS}
    _, report = run_apply(synthetic_release(files), tmp_path / "patches")
    assert [r.hook for r in report.hooks] == HOOKS
    assert all(r.ok for r in report.hooks), [r for r in report.hooks if not r.ok]
    # The carried tests' file too.
    assert report.hooks[0].checked == (HELPER, HANDLER, f"components/src/{tests}")
    assert report.hooks[-1].checked == (f"{report.patches[0]} (commit message)",)


def refused(rel, tmp_path: Path) -> SeriesFailed:
    """apply_series on ``rel`` fails on upstream's hooks, and writes nothing."""
    patches = tmp_path / "patches"
    with pytest.raises(SeriesFailed) as failed:
        run_apply(rel, patches)
    assert "\n" not in str(failed.value) and not failed.value.proof
    assert not patches.exists()
    checkout = fetch(rel.pin, rel.ws)
    assert gitio.rev_parse(checkout.path, rel.pin.branch) is None  # no work branch moved
    assert gitio.local_changes(checkout.path) == []
    return failed.value


def planted(rel_path: str, text: str) -> dict[str, str]:
    return {**SYNTHETIC_FILES, f"dynamo/{rel_path.split('/dynamo/', 1)[1]}": text}


def test_a_misspelling_fails_apply_naming_codespell(synthetic_release, tmp_path) -> None:
    doc = "Logprobs of one streamed chunk."
    wrong = snippets.HELPER.replace(doc, "Logprobs of teh streamed chunk.")
    failed = refused(synthetic_release(planted(HELPER, wrong)), tmp_path)
    patched = snippets.HELPER_PATCHED.replace(doc, "Logprobs of teh streamed chunk.")
    line = patched[: patched.index("teh")].count("\n") + 1
    assert str(failed) == (f"codespell (upstream settings) fails at {HELPER}:{line}: teh ==> the")
    assert [f.hook for f in failed.findings] == ["codespell"]


def test_a_missing_spdx_header_fails_apply(synthetic_release, tmp_path) -> None:
    bare = snippets.HANDLER.removeprefix(snippets.SPDX_HEADER)
    failed = refused(synthetic_release(planted(HANDLER, bare)), tmp_path)
    assert str(failed).startswith(f"SPDX header (upstream settings) fails at {HANDLER}:1: ")
    assert "no SPDX header" in str(failed) and len(failed.findings) == 1


def test_a_ruff_fixable_import_fails_apply(synthetic_release, tmp_path) -> None:
    """dynamo's own line, untouched by the series (flake8 looks at changed lines only), but
    ruff's hook runs on the whole file and would remove it."""
    unused = snippets.HELPER.replace("from typing", "import os\nfrom typing")
    failed = refused(synthetic_release(planted(HELPER, unused)), tmp_path)
    assert str(failed).startswith(
        f"ruff (upstream settings) fails at {HELPER}:4: F401 `os` imported but unused [fixable"
    )
    assert [f.hook for f in failed.findings] == ["ruff"]


def test_a_message_without_sign_off_fails_apply_naming_dco(
    synthetic_release, tmp_path, monkeypatch
) -> None:
    """The DCO hook reads the commit `git am` makes of the export: a patch whose message
    lost its Signed-off-by is refused, with the message's line."""
    export = apply._export

    def unsigned(*args):
        out = export(*args)
        for patch in out.glob("*.patch"):
            kept = [ln for ln in patch.read_text().split("\n") if not ln.startswith("Signed-off")]
            patch.write_text("\n".join(kept))
        return out

    monkeypatch.setattr(apply, "_export", unsigned)
    failed = refused(synthetic_release(), tmp_path)
    [finding] = failed.findings
    assert finding.path.startswith("0001-perf-trtllm-") and finding.path.endswith(
        ".patch (commit message)"
    )
    assert str(failed) == (
        f"DCO (upstream settings) fails at {finding.path}:{finding.line}: no line matching "
        "^Signed-off-by: .+ <.+>$ (a DCO sign-off)"
    )
