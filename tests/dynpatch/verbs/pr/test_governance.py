"""dynamo's governance on a change: core lines by kind of file, areas by CODEOWNERS (the
last matching rule), or by component folder where the base has none."""

from __future__ import annotations

import pytest

from dynpatch.verbs.pr import governance

OWNERS = """\
# comments and blank lines are skipped

*.md @docs-team
/components/src/dynamo/common/backend/ @runtime  # anchored folder # a comment runs to the end
/components/src/dynamo/trtllm/ @trtllm
/components/src/dynamo/trtllm/vendored/  # left unowned: no owners after the pattern
tests/ @qa
/XPU.md @xpu
lib/bindings/ @bindings
Makefile  @ops   @infra
"""
HELPER = "components/src/dynamo/common/backend/logprobs.py"
HANDLER = "components/src/dynamo/trtllm/request_handlers/handler_base.py"


@pytest.mark.parametrize(
    ("path", "owner"),
    [
        (HELPER, "@runtime"),
        (HANDLER, "@trtllm"),
        ("components/src/dynamo/trtllm/README.md", "@trtllm"),  # the later rule wins
        ("components/src/dynamo/trtllm/vendored/a.py", None),  # and an unowned one too
        ("components/src/dynamo/trtllm/vendored/README.md", None),
        ("README.md", "@docs-team"),
        ("components/src/dynamo/common/backend/tests/test_logprobs.py", "@qa"),  # unanchored
        ("x/components/src/dynamo/trtllm/a.py", None),  # anchored at the top
        ("components/src/dynamo/common/other.py", None),  # no rule: no area
        ("XPU.md", "@xpu"),  # an anchored name matches at the top,
        ("docs/XPU.md", "@docs-team"),  # and only there
        ("deploy/lib/bindings/a.py", None),  # a slash inside anchors the pattern too
        ("lib/tests", None),  # a file, not the tests/ folder
        ("Makefile", "@ops @infra"),  # a name with no slash matches at the top, all owners
        ("deploy/Makefile", "@ops @infra"),  # and at any depth
        ("benchmarks/tests/conftest.py", "@qa"),  # a folder without a slash: at any depth
    ],
)
def test_the_area_is_the_last_matching_rule_s_owners(path: str, owner: str | None) -> None:
    assert governance.core_lines([(1, 0, path)], OWNERS).areas == ((owner,) if owner else ())


def test_core_lines_leave_out_tests_docs_and_generated_files_and_count_areas() -> None:
    numstat = [
        (24, 6, HELPER),
        (7, 3, HANDLER),
        (45, 2, "components/src/dynamo/common/backend/tests/test_logprobs.py"),
        (3, 0, "docs/guide.md"),
        (9, 9, "components/src/dynamo/common/backend/x_pb2.py"),
        (5, 1, "components/src/dynamo/common/test_utils.py"),  # a test by its name
        (2, 2, "README.md"),  # documentation by its suffix
    ]
    by_owners = governance.core_lines(numstat, OWNERS)
    assert (by_owners.added, by_owners.removed, by_owners.files) == (31, 9, (HELPER, HANDLER))
    assert (by_owners.tests, by_owners.docs, by_owners.generated) == (2, 2, 1)
    assert by_owners.reasons == ["4 areas (@runtime, @trtllm, @qa, @docs-team)"]
    assert by_owners.sentence().startswith(
        "needed: 40 core lines changed (31 added, 9 removed, in 2 files; 2 test files, 2 "
        "documentation files, 1 generated file not counted) and 4 areas by the base's CODEOWNERS;"
    )
    by_main = governance.core_lines(numstat[:3], None)  # the copy of main's rows
    runtime, trtllm = (
        "@ai-dynamo/dynamo-runtime-codeowners",
        "@ai-dynamo/dynamo-backend-trtllm-codeowners",
    )
    assert by_main.areas == (runtime, trtllm)
    assert by_main.sentence().startswith(
        "needed: 40 core lines changed (31 added, 9 removed, in 2 files; 1 test file not "
        "counted) and 2 areas by the rows of dynamo's main CODEOWNERS (commit 000e541, read "
        "2026-12) for these folders: this base has none; one is needed above 100 core lines"
    )
    build = [(1, 0, "container/deps/requirements.txt"), (1, 0, "lib/pydocs/x.py")]
    assert governance.core_lines(build, None).files == tuple(p for _, _, p in build)  # core


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("components/src/dynamo/common/attestation.py", "core"),  # "test" inside a word
        ("components/src/dynamo/common/latest_utils.py", "core"),
        ("components/src/dynamo/contest/tests_of.py", "core"),  # no tests/ or test/ folder
        ("test_top.py", "test"),
        ("lib/test/helpers.py", "test"),
        ("tests/x/conftest.py", "test"),
    ],
)
def test_a_test_file_is_one_in_a_tests_folder_or_named_test_(path: str, kind: str) -> None:
    counted = governance.core_lines([(1, 0, path)], OWNERS)
    assert (counted.files, counted.tests) == (((path,), 0) if kind == "core" else ((), 1))


@pytest.mark.parametrize(
    ("changed", "needed"),
    [
        ([(60, 50, HELPER)], True),  # added plus removed: 110
        ([(0, 101, HELPER)], True),
        ([(50, 50, HELPER)], False),  # 100 exactly
        ([(101, 0, HELPER)], True),
        ([(40, 20, HELPER), (20, 21, "components/src/dynamo/common/backend/b.py")], True),
    ],
)
def test_a_contribution_request_is_needed_over_100_added_plus_removed_lines(
    changed: list, needed: bool
) -> None:
    counted = governance.core_lines(changed, OWNERS)
    total = sum(a + r for a, r, _ in changed)
    assert counted.reasons == ([f"{total} core lines, over 100"] if needed else [])
    assert counted.sentence().startswith(f"{'needed' if needed else 'not needed'}: {total} core")
