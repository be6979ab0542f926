"""dynpatch.verbs.pr.description through `pr`: dynamo's template, one screen, figures only from
records saved for this base and series, the full record beside it."""

from __future__ import annotations

import hashlib
import re

from dynpatch import evidence, series
from dynpatch.verbs.pr import description
from tests.fixtures.pr import HANDLER, HELPER, World
from tests.fixtures.synthetic import REPO

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


def _first_screen(text: str) -> str:
    return text.split("<details>", 1)[0]


def test_the_body_is_dynamo_s_template_on_one_screen(world: World, pr) -> None:
    status, out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    assert text.startswith("## Overview:\n") and "<!--" not in text  # no note in the body
    assert (
        "next         dynamo does not accept fully automated submissions: read the diff and "
        "the description, change what you would not say yourself, then push the branch to "
        "your fork and open the PR yourself (docs/pr.md says how)"
    ) in out
    headings = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert headings == [
        "## Overview:",
        "## Details:",
        "## Where should the reviewer start?",
        "## Related Issues",
        "## Public API",
    ]
    assert text.endswith(f"## Public API\n\n{description.PUBLIC_API}\n")
    outside = _outside_details(text)
    assert len(outside) <= 40, len(outside)
    body = "\n".join(outside)
    assert "nox -s" not in body and "out/" not in body
    assert "```\n" not in body and "file changed" not in body  # no diffstat, no commands
    start = text.split("## Where should the reviewer start?\n\n")[1].split("\n\n")[0]
    assert [ln.split(":")[0] for ln in start.splitlines()] == [
        f"1. `{HELPER}`, `extract_from_completion_output`",
        f"1. `{HANDLER}`, `HandlerBase._generate_locally_impl`",
    ]
    assert "- Made on `v9.9.9`, commit " in text
    assert (
        "- instructions per request (valgrind callgrind, deterministic): not run for this base "
        "and series\n- replay of the real handler on both trees: not run for this base and "
        "series\n\n**Alternatives considered.**"
    ) in _first_screen(text)
    assert 'dynamo\'s own tests, CPU tier (`-m "pre_merge and gpu_0"`): not run for this' in text
    assert "it was not measured for this base and series" in text  # no alternative's figures
    assert "and the one-line alternative above" in text  # not said to be measured
    assert "has no saved run of this script" in text
    assert "- Relates to #14402 (pull request)\n" in text
    record = world.out.with_name("VALIDATION.md").read_text()
    assert "## verify: not run\n\nno " in record and "DCO: every commit has a" in record
    assert "## pre-commit: not run" in record
    # the record says what the series digest hashes, as series.series_digest computes it
    assert (
        "sha256 over `patches/series` and then each patch it lists, in order, each fed as its "
        "file name, a NUL byte, the file's bytes and a NUL byte (commit messages included)"
    ) in record
    names = ["series", *(world.patches / "series").read_text().split()]
    fed = b"".join(n.encode() + b"\0" + (world.patches / n).read_bytes() + b"\0" for n in names)
    assert hashlib.sha256(fed).hexdigest() == series.series_digest(world.patches)


def test_the_carried_tests_the_text_names_are_in_the_series() -> None:
    """Each test the description names is added to the file it names by patches/."""
    added: dict[str, str] = {}
    for patch in sorted(REPO.patches.glob("*.patch")):
        for part in patch.read_text().split("\ndiff --git a/")[1:]:
            path = part.split(" ", 1)[0]
            added[path] = added.get(path, "") + part
    for name, path in (
        (description.HELPER_TEST, description.HELPER_TESTS),
        (description.HANDLER_TEST, description.HANDLER_TESTS),
    ):
        assert re.search(rf"^\+\s*(async )?def {name}\(", added.get(path, ""), re.M), (name, path)


def test_the_alternative_and_the_headline_come_from_the_records(world: World, pr) -> None:
    mutation = "new regression tests: 14 fail on baseline, 14 pass on patched (of 14)"
    world.save("test-upstream", tiers={"cpu": {"mutation": mutation, "regressions": []}})
    alternative = {"line": "alternative (informative; ...): 0 divergences from the baseline"}
    world.save(
        "verify", budget=200, alternative=alternative, scenarios=[{"divergence": None}] * 232
    )
    world.save("bench", **COUNTED, rerun=RERUN)
    status, _out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    assert (
        "gets nearly all of the gain with no new parameter, and helps every caller: 0.872 and "
        "0.564 of the baseline's instructions per request (256 tokens x 4 choices, 4096 x 1) "
        "against 0.855 and 0.548 here; it is flat per chunk too, with about 3 % more "
        "instructions per chunk; its replay shows 0 divergences from the baseline. The cost "
        "of this design: "
    ) in text
    assert "and the measured one-line alternative above" in text
    assert (
        "a reviewer runs, in a dynamo checkout: `pre-commit run --files "
        f"{HELPER} {HANDLER}`, `pytest components/src/dynamo/common/backend/tests/"
        "test_logprobs.py`, and inside `nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:9.9.9` "
        '`pytest -m "pre_merge and trtllm and gpu_1" '
        "components/src/dynamo/trtllm/tests/test_trtllm_handler_base.py`\n"
    ) in text
    first = _first_screen(text)  # the headline figures, before any <details>
    assert len(first.splitlines()) <= 17
    assert "0.855 of the baseline at 256 tokens x 4 choices, 0.548 at 4096 x 1" in first
    assert "232 streams (200 of them hypothesis-drawn), 0 divergences: pass" in first
    assert "14 fail on baseline, 14 pass on patched; regressions: none" in first
    assert '(gpu_0 or gpu_1)"`, in the TRT-LLM container): not run\n' in text
    assert f"```python\n{evidence.RERUN.read_text().rstrip()}\n```" in text
    assert "on Some CPU x2" in text and "16384   41.07   1.74  23.6x\n```" in text
    assert "PYTHONPATH" not in text and "python3 per_chunk_cost.py [PATH/TO/logprobs.py]" in text

    # the script's output is shown only for the script as it is
    world.save("bench", **COUNTED, rerun={**RERUN, "sha256": "0" * 64})
    assert pr()[0] == 0
    text = world.out.read_text()
    assert "has no saved run of this script" in text and "23.6x" not in text
