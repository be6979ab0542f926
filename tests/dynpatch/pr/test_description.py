"""dynpatch.pr.description through `pr`: the template sections, no unsaved results."""

from __future__ import annotations

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
