"""apply_series end to end: on synthetic releases (offline) and on the real pin."""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from codemods.series import COMMIT_MESSAGE
from dynpatch import series
from dynpatch.errors import ToolkitError
from dynpatch.fetch import fetch, materialise_pypi
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin
from dynpatch.services import export as apply
from dynpatch.services.export import SeriesFailed, am_problem, apply_series
from dynpatch.services.upstream_tests import tiers, verdict
from dynpatch.services.upstream_tests.runner import run_pytest
from tests.fixtures import snippets
from tests.fixtures.synthetic import DELTA, HANDLER, HELPER, REPO, SYNTHETIC_FILES

AUTHOR = gitio.parse_identity("Test Author <test@example.invalid>")
HOOKS = ["isort", "black", "flake8", "ruff", "codespell", "SPDX header", "DCO"]


def run_apply(rel, patches: Path, **kwargs):
    checkout = fetch(rel.pin, rel.ws)
    report = apply_series(
        checkout,
        author=AUTHOR,
        date=rel.pin.date,
        branch=rel.pin.branch,
        ws=REPO,  # shares the cached upstream formatter env
        patches_dir=patches,
        **kwargs,
    )
    return checkout, report


def files_of(patches: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in patches.iterdir()}


def test_a_signed_series_with_provenance_proved_by_git_am_then_kept_as_it_is(
    synthetic_release, tmp_path
) -> None:
    tests = "dynamo/trtllm/tests/test_trtllm_handler_base.py"
    rel = synthetic_release({**SYNTHETIC_FILES, tests: snippets.HANDLER_TESTS})
    patches = tmp_path / "patches"
    checkout, report = run_apply(rel, patches)
    assert report.patches == series.names(patches)
    patch = (patches / report.patches[0]).read_text()
    assert report.patches[0].startswith("0001-perf-trtllm-")
    assert "\nSigned-off-by: Test Author <test@example.invalid>\n" in patch
    assert f"sha256 {rel.pin.pinned.sha256}" in patch  # provenance
    assert f"base-commit: {checkout.base}" in patch
    assert "+    new_token_ids: Optional[Sequence[int]] = None," in patch
    # The message is the series' own: nothing is appended to it.
    message = patch.split("Subject: [PATCH] ", 1)[1].split("\nSigned-off-by:", 1)[0]
    assert message.rstrip() == COMMIT_MESSAGE.rstrip()
    assert report.lines["extract_from_completion_output"][0] > 0
    # every hook passed, on every touched file (the carried tests' too) and the message
    assert [r.hook for r in report.hooks] == HOOKS and all(r.ok for r in report.hooks)
    assert report.hooks[0].checked == (HELPER, HANDLER, f"components/src/{tests}")
    assert report.hooks[-1].checked == (f"{report.patches[0]} (commit message)",)
    # the work branch holds the commit, and the checkout is left clean
    assert gitio.rev_parse(checkout.path, rel.pin.branch) == report.commit
    assert gitio.local_changes(checkout.path) == []

    # It applies to a fresh materialisation of the release, and reverses.
    fresh, made = tmp_path / "fresh", [patches / n for n in report.patches]
    materialise_pypi(rel.pin, rel.pin.pinned, fresh, rel.wheel.parent)
    gitio.am(fresh, made)
    assert (fresh / HELPER).read_text() == gitio.show_file(checkout.path, report.commit, HELPER)
    gitio.reverse_applies(fresh, made)

    # A second apply changes nothing, --check passes; bump's and the matrix's export (no
    # branch) gives the same bytes and adds no object to the checkout.
    before = files_of(patches)
    assert run_apply(rel, patches)[1].changed_files == []
    assert files_of(patches) == before
    run_apply(rel, patches, check=True)
    objects = sorted(p for p in (checkout.path / ".git" / "objects").rglob("*") if p.is_file())
    exported = apply.export_series(checkout, rel.pin, REPO, tmp_path / "export", DELTA)
    assert exported.commit == report.commit and exported.timings["git am check"] > 0
    assert files_of(tmp_path / "export") == before
    assert sorted(p for p in (checkout.path / ".git" / "objects").rglob("*") if p.is_file()) == (
        objects
    )

    # --check finds a stale series and leaves it as it is.
    stale = patches / report.patches[0]
    stale.write_text(stale.read_text().replace("perf(trtllm)", "perf(trtllm-old)"))
    edited = stale.read_text()
    with pytest.raises(ToolkitError, match=r"patches/0001-.*\.patch is stale: regenerate"):
        run_apply(rel, patches, check=True)
    assert stale.read_text() == edited


def test_drifted_source_fails_with_every_outcome_and_writes_nothing(
    synthetic_release, tmp_path
) -> None:
    files = dict(SYNTHETIC_FILES)
    files["dynamo/trtllm/request_handlers/handler_base.py"] = snippets.HANDLER.replace(
        "output, tokens_so_far\n", "output, so_far\n"
    )
    rel = synthetic_release(files)
    patches = tmp_path / "patches"
    expected = r"HandlerBase\._generate_locally_impl: expected .*so_far"
    with pytest.raises(SeriesFailed, match=expected) as drift:
        run_apply(rel, patches)
    assert not drift.value.proof and not drift.value.report.result.ok
    assert len(drift.value.report.outcomes) == 5
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


def test_a_failed_proof_raises_with_every_outcome(synthetic_release, tmp_path, monkeypatch):
    rel = synthetic_release()
    monkeypatch.setattr(apply, "am_problem", lambda *a: "0001-x.patch: patch failed: a.py:1")
    patches = tmp_path / "patches"
    expected = r"fails the git am proof on upstream/9\.9\.9: 0001-x"
    with pytest.raises(SeriesFailed, match=expected) as no:
        run_apply(rel, patches)
    assert no.value.proof == "0001-x.patch: patch failed: a.py:1"
    assert no.value.report.result.ok and no.value.report.outcomes
    assert not patches.exists()  # nothing installed, and no work branch moved
    assert gitio.rev_parse(fetch(rel.pin, rel.ws).path, rel.pin.branch) is None


def test_a_message_without_sign_off_fails_apply_naming_dco(
    synthetic_release, tmp_path, monkeypatch
) -> None:
    """The DCO hook reads the commit `git am` makes of the export: a patch whose message
    lost its Signed-off-by is refused, with the message's line, and nothing is written."""
    export = apply._export

    def unsigned(*args):
        out = export(*args)
        for patch in out.glob("*.patch"):
            kept = [ln for ln in patch.read_text().split("\n") if not ln.startswith("Signed-off")]
            patch.write_text("\n".join(kept))
        return out

    monkeypatch.setattr(apply, "_export", unsigned)
    rel, patches = synthetic_release(), tmp_path / "patches"
    with pytest.raises(SeriesFailed) as failed:
        run_apply(rel, patches)
    [finding] = failed.value.findings
    assert re.fullmatch(r"0001-perf-trtllm-.*\.patch \(commit message\)", finding.path)
    assert str(failed.value) == (
        f"DCO (upstream settings) fails at {finding.path}:{finding.line}: no line matching "
        "^Signed-off-by: .+ <.+>$ (a DCO sign-off)"
    )
    assert not patches.exists()
    checkout = fetch(rel.pin, rel.ws)
    assert gitio.rev_parse(checkout.path, rel.pin.branch) is None  # no work branch moved
    assert gitio.local_changes(checkout.path) == []


# --- the real pinned release (fetched from PyPI once, cached in .cache/ and vendor/)


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
        ws=REPO,
        patches_dir=REPO.patches,
        check=True,
    )
    assert report.patches == series.names(REPO.patches)
    assert all(o.ok for o in report.outcomes)
    # upstream's whole pre-commit is green on today's series, every touched file checked
    assert [r.hook for r in report.hooks] == HOOKS and all(r.ok for r in report.hooks)
    patch = (REPO.patches / report.patches[0]).read_text()
    touched = sorted(set(re.findall(r"^\+\+\+ b/(\S+)$", patch, re.MULTILINE)))
    assert list(report.hooks[0].checked) == touched


@pytest.mark.integration
def test_dynamo_logprob_tests_pass_on_the_patched_tree(real_checkout, tmp_path) -> None:
    """dynamo's own test_logprobs.py on the patched source, from the patched file."""
    if os.environ.get("DYNPATCH_REQUIRE_UPSTREAM_RUNTIME") != "1":
        pytest.importorskip("dynamo._core", reason="ai-dynamo-runtime not installed")
    patched = tmp_path / "patched"
    committed = [REPO.patches / n for n in series.names(REPO.patches)]
    assert am_problem(real_checkout, committed, patched) == ""  # patched: the applied tree
    tests = "components/src/dynamo/common/backend/tests/test_logprobs.py"
    run = run_pytest(tiers.CPU, "patched", patched, sys.executable, tmp_path, [tests])
    counts = Counter(run.tests.values())
    # 36 passed, 3 skipped upstream; the series adds its own regression tests.
    assert counts["passed"] > 36 and counts["skipped"] == 3 and len(counts) == 2, counts
    assert run.modules[verdict.HELPER_MODULE] == str(patched / HELPER)
    assert "new_token_ids" in (patched / HELPER).read_text()
