"""dynpatch.apply.precommit.dco: dynamo's DCO rule on a commit message, with line numbers (pure)."""

from __future__ import annotations

import pytest

from dynpatch.apply.precommit import dco
from dynpatch.io.git import CommitInfo, Identity

AUTHOR = Identity("Jane Doe", "jane@example.invalid")


@pytest.mark.parametrize(
    ("message", "found"),
    [
        ("perf: x\n\nBody.\n\nSigned-off-by: Jane Doe <jane@example.invalid>\n", None),
        # on any line, and the e-mail's case does not matter
        ("perf: x\n\nSigned-off-by: Jane Doe <JANE@example.invalid>\nMore.\n", None),
        ("perf: x\n\nBody line.\n", (3, "no line matching ^Signed-off-by: .+ <.+>$")),
        ("perf: x\n\nSigned-off-by: jane@example.invalid\n", (3, "no line matching")),
        ("perf: x\n\n Signed-off-by: Jane Doe <jane@example.invalid>\n", (3, "no line matching")),
        (
            "perf: x\n\nBody.\n\nSigned-off-by: Other Person <other@example.invalid>\n",
            (5, "is not the author Jane Doe <jane@example.invalid>"),
        ),
    ],
)
def test_the_rule_wants_a_sign_off_by_the_author(message: str, found: tuple | None) -> None:
    label = "0001-x.patch (commit message)"
    findings = dco.check(CommitInfo("a" * 40, "b" * 40, AUTHOR, AUTHOR, message, False), label)
    if found is None:
        assert findings == []
    else:
        [finding] = findings
        assert (finding.hook, finding.path, finding.line) == ("DCO", label, found[0])
        assert found[1] in finding.message
