"""dynpatch.apply.precommit.spdx: dynamo's copyright-header rule on one file (pure, fast)."""

from __future__ import annotations

import pytest

from dynpatch.apply.precommit import spdx
from tests.fixtures.snippets import SPDX_HEADER

BODY = "def f():\n    return 1\n"
PY = "components/src/dynamo/x.py"


def test_the_header_dynamo_files_carry_passes() -> None:
    assert spdx.check(PY, SPDX_HEADER + BODY, 2026) == []
    single = SPDX_HEADER.replace("2025-2026", "2026")
    assert spdx.check(PY, single + BODY, 2026) == []


def test_a_missing_header_is_found_at_line_1() -> None:
    [finding] = spdx.check(PY, BODY, 2026)
    assert (finding.hook, finding.path, finding.line) == ("SPDX header", PY, 1)
    assert "no SPDX header" in finding.message and "Apache-2.0" in finding.message


def test_half_a_header_or_another_license_is_missing() -> None:
    copyright_only = SPDX_HEADER.split("\n")[0] + "\n" + BODY
    assert spdx.check(PY, copyright_only, 2026)
    other = SPDX_HEADER.replace("Apache-2.0", "MIT")
    assert spdx.check(PY, other + BODY, 2026)


def test_a_header_older_than_the_commit_names_its_line() -> None:
    text = "#!/usr/bin/env python3\n" + SPDX_HEADER.replace("2025-2026", "2024") + BODY
    [finding] = spdx.check(PY, text, 2026)
    assert finding.line == 2 and "2024 is older than the commit (2026)" in finding.message
    assert spdx.check(PY, text, 2024) == []


def test_case_spacing_and_comment_spacer_lines_are_allowed_as_upstream_allows_them() -> None:
    loose = (
        "# spdx-filecopyrighttext:  Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. "
        "All rights reserved.\n#\n# SPDX-License-Identifier:   Apache-2.0\n"
    )
    assert spdx.check(PY, loose + BODY, 2026) == []


@pytest.mark.parametrize(
    ("path", "comment"),
    [
        ("a/b.py", "#"),
        ("a/run.sh", "#"),
        ("a/c.yaml", "#"),
        ("a/lib.rs", "//"),
        ("a/README.md", None),
        ("a/d.json", None),
        ("a/e.pyi", None),
        (".github/x.py", None),
        ("a/blob.bin", None),
    ],
)
def test_which_files_the_rule_covers(path: str, comment: str | None) -> None:
    assert spdx.comment_of(path) == comment


def test_slash_comment_files_need_the_slash_header() -> None:
    rust = SPDX_HEADER.replace("# ", "// ")
    assert spdx.check("lib/x.rs", rust + "fn main() {}\n", 2026) == []
    assert spdx.check("lib/x.rs", SPDX_HEADER + "fn main() {}\n", 2026)


def test_uncovered_and_empty_files_are_not_checked() -> None:
    assert spdx.check("docs/x.md", "no header\n", 2026) == []
    assert spdx.check("components/src/dynamo/__init__.py", "", 2026) == []
