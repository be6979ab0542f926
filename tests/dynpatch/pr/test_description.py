"""dynpatch.pr.description through `pr`: dynamo's template, one screen, figures only from
records saved for this base and series, the full record beside it."""

from __future__ import annotations

import hashlib
import re

from dynpatch import evidence
from tests.fixtures.pr import HELPER, World

COUNTED = {
    "requests": {
        "256x4": {"patched/baseline": 0.855, "alternative/baseline": 0.872},
        "4096x1": {"patched/baseline": 0.548, "alternative/baseline": 0.564},
    },
    "per_chunk": {
        c: {
            "baseline": {"late_vs_early_pct": 498.6, "windows": [{"per_chunk": 90000.0}]},
            "patched": {"late_vs_early_pct": 0.17, "windows": [{"per_chunk": 33000.0}]},
            "alternative": {"late_vs_early_pct": 0.14, "windows": [{"per_chunk": 33990.0}]},
        }
        for c in ("16384x1", "16384x4")
    },
}
SCRIPT_SHA = hashlib.sha256(evidence.RERUN.read_bytes()).hexdigest()
RERUN = {"sha256": SCRIPT_SHA, "output": "   16384   41.07   1.74  23.6x\n", "cpu": "Some CPU x2"}


def _outside_details(text: str) -> list[str]:
    return re.sub(r"<details>.*?</details>", "", text, flags=re.S).splitlines()


def test_the_body_is_dynamo_s_template_on_one_screen(world: World, pr) -> None:
    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    headings = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert headings == [
        "## Overview:",
        "## Details:",
        "## Where should the reviewer start?",
        "## Related Issues",
        "## Public API",
    ]
    assert text.split("## Public API\n\n")[1].startswith("- [ ] If this PR removes or incompat")
    assert len(text.split("## Public API\n\n")[1].strip().splitlines()) == 1
    outside = _outside_details(text)
    assert len(outside) <= 40, len(outside)
    body = "\n".join(outside)
    assert "nox -s" not in body and "out/" not in body
    assert "```\n" not in body and "file changed" not in body  # no diffstat, no commands
    assert f"`{HELPER}`, `extract_from_completion_output`" in text
    assert "- Made on `v9.9.9`, commit " in text
    for line in (
        "instructions per request (valgrind callgrind, deterministic): not run for this base",
        "replay of the real handler on both trees: not run for this base and series",
        'dynamo\'s own tests, CPU tier (`-m "pre_merge and gpu_0"`): not run for this base',
    ):
        assert line in text
    assert "was not measured for this base and series" in text  # no alternative's figures
    assert "has no saved run of this script" in text
    record = world.out.with_name("VALIDATION.md").read_text()
    assert "## verify: not run\n\nno " in record and "DCO: every commit has a" in record


def test_the_related_pr_s_state_is_dated_not_asserted(world: World, pr) -> None:
    assert pr()[0] == 0
    text = world.out.read_text()
    assert "an open, approved PR" not in text and "- Relates to #14402" in text
    assert "it was open and approved as of 2026-11 (as seen on GitHub then)" in text


def test_the_alternative_and_the_headline_come_from_the_records(world: World, pr) -> None:
    world.save(
        "test-upstream",
        tiers_run=["cpu"],
        tiers={
            "cpu": {
                "mutation": "new regression tests: 14 fail on baseline, 14 pass on patched (of 14)",
                "regressions": [],
            }
        },
    )
    alternative = {"line": "alternative (informative; ...): 0 divergences from the baseline"}
    world.save(
        "verify", budget=200, alternative=alternative, scenarios=[{"divergence": None}] * 232
    )
    world.bench(**COUNTED, rerun=RERUN)
    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    assert (
        "gets nearly all of the gain: 0.872 and 0.564 of the baseline's instructions per "
        "request (256 tokens x 4 choices, 4096 x 1) against 0.855 and 0.548 here, and it is "
        "flat per chunk too, with about 3 % more instructions per chunk; its "
        "replay shows 0 divergences from the baseline."
    ) in text
    assert "0.855 of the baseline at 256 tokens x 4 choices, 0.548 at 4096 x 1" in text
    assert "232 streams (200 of them hypothesis-drawn), 0 divergences: pass" in text
    assert "14 fail on baseline, 14 pass on patched; regressions: none" in text
    assert '(gpu_0 or gpu_1)"`, in the TRT-LLM container): not run\n' in text
    assert f"```python\n{evidence.RERUN.read_text().rstrip()}\n```" in text
    assert "on Some CPU x2" in text and "16384   41.07   1.74  23.6x\n```" in text


def test_the_script_s_output_is_shown_only_for_the_script_as_it_is(world: World, pr) -> None:
    world.bench(**COUNTED, rerun={**RERUN, "sha256": "0" * 64})
    assert pr()[0] == 0
    text = world.out.read_text()
    assert "has no saved run of this script" in text and "23.6x" not in text
