"""dynpatch.pr.description through `pr`: the template sections, no unsaved results."""

from __future__ import annotations

from dynpatch import evidence
from tests.fixtures.pr import HELPER, JANE, World, git


def test_description_has_the_template_sections_and_no_unsaved_results(world: World, pr) -> None:
    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    headings = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert headings == [
        "## Overview:", "## Details:", "## Where should the reviewer start?",
        "## Related Issues", "## Public API", "## Validation",
    ]  # fmt: skip
    assert "- Relates to #14402" in text and "not a competing merge" in text
    assert "has no saved result for this version" in text  # no replay claim without evidence
    assert "replay-equivalence results in Validation" not in text
    for stage in ("test-upstream", "verify", "bench"):
        assert f"#### {stage}: not run" in text
    assert "summary:" not in text
    assert f"`{HELPER}`, `extract_from_completion_output`" in text
    assert "in no `__all__` of its module or package" in text
    assert "`HandlerBase._extract_logprobs`" in text and "private" in text
    assert f"DCO: every commit has a `Signed-off-by` matching its author ({JANE}): pass" in text
    assert "the commits are not signed" in text


def test_public_api_says_when_the_helper_is_exported(world: World, pr) -> None:
    init = world.repo / "components/src/dynamo/common/backend/__init__.py"
    init.write_text('__all__ = ["Worker", "extract_from_completion_output"]\n')
    git(world.repo, "-c", "user.name=U", "-c", "user.email=u@example.invalid",
        "commit", "-qam", "export the helper")  # fmt: skip
    status, _out, err = pr()  # the new HEAD is the base; the series still applies
    assert status == 0, err
    text = world.out.read_text()
    assert "It is named in `components/src/dynamo/common/backend/__init__.py`" in text
    assert "experimental helper" not in text


def _bench(world: World, kind: str, verdict: str = "pass") -> None:
    evidence.save_bench_run(
        kind, world.patches, base=world.base, series_sha256=evidence.series_digest(world.patches),
        command=f"nox -s bench -- --{kind}", verdict=verdict,
        summary_md=f"{kind} table\n\n    targets: {verdict}", details={}, out=world.evidence,
    )  # fmt: skip


def _bench_section(text: str) -> str:
    return text[text.index("#### bench") : text.index("#### This branch")]


def test_bench_shows_instruction_counts_first_then_the_full_run_never_the_quick(
    world: World, pr
) -> None:
    world.save("test-upstream", "verify")
    _bench(world, "quick", verdict="fail")
    _bench(world, "full")
    _bench(world, "instructions")
    status, _out, err = pr()
    assert status == 0, err
    section = _bench_section(world.out.read_text())
    assert section.startswith("#### bench: instruction counts pass\n")
    counts = section.index(
        "##### instruction counts (valgrind callgrind: deterministic, gated) pass"
    )
    full = section.index("##### time-based A/B, full run")
    assert counts < full and "$ nox -s bench -- --full" in section
    assert "quick" not in section and "FAIL" not in section


def test_a_quick_run_alone_is_indicative_and_never_a_pass_or_a_fail(world: World, pr) -> None:
    _bench(world, "quick", verdict="fail")
    status, _out, err = pr()
    assert status == 0, err
    section = _bench_section(world.out.read_text())
    assert section.startswith("#### bench: quick time-based run only (indicative, no verdict)\n")
    assert "##### time-based A/B, quick run: indicative only, not a verdict\n" in section
    assert "FAIL" not in section and "pass" not in section.replace("targets: fail", "")


def test_failed_instruction_counts_are_the_headline(world: World, pr) -> None:
    _bench(world, "full")
    _bench(world, "instructions", verdict="fail")
    status, _out, err = pr()
    assert status == 0, err
    section = _bench_section(world.out.read_text())
    assert section.startswith("#### bench: instruction counts **FAIL**\n")
    assert "(targets met)" in section  # the timed run stays informative beside it


def test_a_quick_record_saved_before_the_kinds_is_indicative_too(world: World, pr) -> None:
    evidence.save(
        "bench", world.patches, base=world.base,
        series_sha256=evidence.series_digest(world.patches),
        command="nox -s bench -- --quick", verdict="fail",
        summary_md="targets met: 2 of 4", details={"settings": {"quick": True}}, out=world.evidence,
    )  # fmt: skip
    status, _out, err = pr()
    assert status == 0, err
    section = _bench_section(world.out.read_text())
    assert section.startswith("#### bench: quick time-based run only (indicative, no verdict)\n")
    assert "FAIL" not in section
