"""The series commit message: the codemods' text, and the measured paragraph only from a
reference record of this very code."""

from __future__ import annotations

import json
from pathlib import Path

from codemods.series import COMMIT_MESSAGE
from dynpatch import evidence
from dynpatch.patch.message import commit_message, measured
from tests.dynpatch.patch.test_apply import run_apply

REFERENCE = {
    "code_sha256": "0" * 64,
    "recorded": "2026-12-01",
    "how": {"valgrind": "valgrind-3.19.0", "tool": "callgrind"},
    "requests": {
        "256x4": {
            "baseline": {"instructions": 81_415_692.0},
            "patched": {"instructions": 69_517_668.0},
            "patched/baseline": 0.8538,
        },
        "4096x1": {
            "baseline": {"instructions": 260_160_550.0},
            "patched": {"instructions": 142_384_493.0},
            "patched/baseline": 0.5473,
        },
    },
}


def test_no_reference_is_the_codemods_message() -> None:
    assert commit_message(None, "1.6.1") == COMMIT_MESSAGE


def test_the_paragraph_says_what_was_counted_and_how() -> None:
    text = measured(REFERENCE, "1.6.1")
    assert max(len(line) for line in text.splitlines()) <= 72
    flat = " ".join(text.split())
    assert flat.startswith("Measured with valgrind-3.19.0 callgrind: 81.4 M -> 69.5 M instructions")
    assert "(0.85x) per request of 256 tokens x 4 interleaved choices, logprobs on" in flat
    assert "(4096 x 1: 0.55x)" in flat and "ai-dynamo 1.6.1's AggregatedHandler.generate" in flat
    message = commit_message(REFERENCE, "1.6.1")
    assert message.startswith(COMMIT_MESSAGE.rstrip() + "\n\nMeasured with ")


def test_the_release_named_is_the_one_measured() -> None:
    # 1.6.0 takes the very same diffs as 1.6.1: its series may quote 1.6.1's counts, as such.
    flat = " ".join(measured({**REFERENCE, "release": "1.6.1"}, "1.6.0").split())
    assert "through ai-dynamo 1.6.1's AggregatedHandler.generate" in flat


def test_apply_quotes_a_reference_of_this_code_only(synthetic_release, tmp_path: Path) -> None:
    rel = synthetic_release()
    reference = tmp_path / "docs" / "instructions.json"
    _, plain = run_apply(rel, tmp_path / "first", reference=reference)
    assert plain.measured.startswith("commit message: no measured figure (") and "not found" in (
        plain.measured
    )
    first = (tmp_path / "first" / plain.patches[0]).read_text()
    assert "Measured with" not in first

    reference.parent.mkdir(parents=True)
    reference.write_text(json.dumps(REFERENCE))  # measured other code
    _, other = run_apply(rel, tmp_path / "second", reference=reference)
    assert "measured other code" in other.measured and other.commit == plain.commit

    code = evidence.code_digest(tmp_path / "first")
    reference.write_text(json.dumps({**REFERENCE, "code_sha256": code}))
    _, quoted = run_apply(rel, tmp_path / "third", reference=reference)
    assert quoted.measured.startswith("commit message: quotes ")
    patch = (tmp_path / "third" / quoted.patches[0]).read_text()
    assert "Measured with valgrind-3.19.0 callgrind: 81.4 M -> 69.5 M" in patch
    assert patch.index("Measured with") < patch.index("Signed-off-by:")
    # The code is the same, so the reference still matches the new series.
    assert evidence.code_digest(tmp_path / "third") == code and quoted.commit != plain.commit
