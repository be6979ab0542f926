"""dynpatch.apply.precommit.spdx: dynamo's copyright-header rule on one file (pure, fast)."""

from __future__ import annotations

from dynpatch.apply.precommit import spdx
from tests.fixtures.snippets import SPDX_HEADER

BODY = "def f():\n    return 1\n"
PY = "components/src/dynamo/x.py"


def test_the_headers_dynamo_allows_pass() -> None:
    single = SPDX_HEADER.replace("2025-2026", "2026")
    loose = (  # case, spacing and bare comment lines between, as upstream allows them
        "# spdx-filecopyrighttext:  Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. "
        "All rights reserved.\n#\n# SPDX-License-Identifier:   Apache-2.0\n"
    )
    for header in (SPDX_HEADER, single, loose):
        assert spdx.check(PY, header + BODY, 2026) == []
    assert spdx.check("lib/x.rs", SPDX_HEADER.replace("# ", "// ") + BODY, 2026) == []


def test_a_missing_half_or_other_header_is_found_at_line_1() -> None:
    [finding] = spdx.check(PY, BODY, 2026)
    assert (finding.hook, finding.path, finding.line) == ("SPDX header", PY, 1)
    assert "no SPDX header ('# SPDX-FileCopyrightText: Copyright (c) <year> NVIDIA" in (
        finding.message
    )
    assert finding.message.endswith("then '# SPDX-License-Identifier: Apache-2.0')")
    for text in (
        SPDX_HEADER.split("\n")[0] + "\n" + BODY,  # the copyright line alone
        SPDX_HEADER.replace("Apache-2.0", "MIT") + BODY,
    ):
        assert [f.line for f in spdx.check(PY, text, 2026)] == [1]
    assert spdx.check("lib/x.rs", SPDX_HEADER + BODY, 2026)  # `//` files need `//`


def test_a_header_older_than_the_commit_names_its_line() -> None:
    text = "#!/usr/bin/env python3\n" + SPDX_HEADER.replace("2025-2026", "2024") + BODY
    [finding] = spdx.check(PY, text, 2026)
    assert finding.line == 2 and "2024 is older than the commit (2026)" in finding.message
    assert spdx.check(PY, text, 2024) == []


def test_which_files_the_rule_covers() -> None:
    covered = {"a/b.py": "#", "a/run.sh": "#", "a/c.yaml": "#", "a/lib.rs": "//"}
    skipped = ["a/README.md", "a/d.json", "a/e.pyi", ".github/x.py", "a/blob.bin"]
    assert {p: spdx.comment_of(p) for p in [*covered, *skipped]} == covered | dict.fromkeys(skipped)
    assert spdx.check("docs/x.md", "no header\n", 2026) == []
    assert spdx.check("components/src/dynamo/__init__.py", "", 2026) == []  # empty
