"""dynpatch.apply.precommit.dco: dynamo's DCO rule on a commit message, with line numbers (pure)."""

from __future__ import annotations

from dynpatch.apply.precommit import dco
from dynpatch.io.git import CommitInfo, Identity

AUTHOR = Identity("Jane Doe", "jane@example.invalid")
LABEL = "0001-x.patch (commit message)"


def commit(message: str, author: Identity = AUTHOR) -> CommitInfo:
    return CommitInfo("a" * 40, "b" * 40, author, author, message, False)


def test_a_sign_off_by_the_author_passes() -> None:
    assert (
        dco.check(
            commit("perf: x\n\nBody.\n\nSigned-off-by: Jane Doe <jane@example.invalid>\n"), LABEL
        )
        == []
    )
    # dynamo's rule is on any line, and e-mail case does not matter
    assert (
        dco.check(
            commit("perf: x\n\nSigned-off-by: Jane Doe <JANE@example.invalid>\nMore.\n"), LABEL
        )
        == []
    )


def test_a_message_without_sign_off_is_found_at_its_end() -> None:
    [finding] = dco.check(commit("perf: x\n\nBody line.\n"), LABEL)
    assert (finding.hook, finding.path, finding.line) == ("DCO", LABEL, 3)
    assert "no line matching ^Signed-off-by: .+ <.+>$" in finding.message


def test_a_malformed_sign_off_does_not_count() -> None:
    assert dco.check(commit("perf: x\n\nSigned-off-by: jane@example.invalid\n"), LABEL)
    assert dco.check(commit("perf: x\n\n Signed-off-by: Jane Doe <jane@example.invalid>\n"), LABEL)


def test_a_sign_off_by_someone_else_names_its_line() -> None:
    message = "perf: x\n\nBody.\n\nSigned-off-by: Other Person <other@example.invalid>\n"
    [finding] = dco.check(commit(message), LABEL)
    assert (
        finding.line == 5 and "is not the author Jane Doe <jane@example.invalid>" in finding.message
    )
