"""dynpatch.services.precommit: dynamo's hooks at their pins (the linters in the real formatter
env), its DCO and SPDX rules (pure) and the findings table (the record: test_apply.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dynpatch import console
from dynpatch.errors import ToolkitError
from dynpatch.io.git import CommitInfo, Identity
from dynpatch.services import precommit
from dynpatch.services.formatters import tools_python
from dynpatch.services.precommit import Finding
from tests.fixtures import snippets
from tests.fixtures.snippets import SPDX_HEADER
from tests.fixtures.synthetic import HANDLER, HELPER, REPO

JANE = Identity("Jane Doe", "jane@example.invalid")
BODY = "def f():\n    return 1\n"


@pytest.fixture(scope="module")
def python() -> Path:
    return tools_python(REPO)


def test_clean_files_pass_every_hook_at_its_pin(python: Path) -> None:
    """dynamo's settings hold: its codespell ignore words, and no E501 at any length."""
    old = {HELPER: snippets.HELPER, HANDLER: snippets.HANDLER}
    words = f'\n\n# afterall, ser and ende are dynamo\'s own words\nTEXT = "{"x" * 100}"\n'
    new = {HELPER: snippets.HELPER_PATCHED + words, HANDLER: snippets.HANDLER_PATCHED}
    results = precommit.check_files(old, new, python, 2026)
    assert [(r.hook, r.pin) for r in results] == [
        ("isort", "5.12.0"),
        ("black", "23.1.0"),
        ("flake8", "7.3.0"),
        ("ruff", "0.5.2 (`--fix --exit-non-zero-on-fix`)"),
        ("codespell", "2.2.4"),
        ("SPDX header", "dynamo's copyright-check.ps1 rule"),
    ]
    assert all(r.ok and r.checked == (HELPER, HANDLER) for r in results), results


def test_each_file_hook_finds_its_planted_problem(python: Path) -> None:
    """A misspelling (codespell), no header (SPDX), an unused import dynamo's line already
    had (ruff: whole files), a lambda the change adds (flake8 and ruff: changed lines), and
    an undefined name in a ``*_inc.py`` (flake8 only: dynamo's ruff ignores F821 there)."""
    base = snippets.HELPER.replace("from typing", "import os\nfrom typing")
    inc = "components/src/dynamo/common/x_inc.py"
    old = {HELPER: base, HANDLER: snippets.HANDLER}
    new = {
        HELPER: snippets.HELPER_PATCHED.replace("from typing", "import os\nfrom typing")
        + "\n\nf = lambda: 1  # teh delta\n",
        HANDLER: snippets.HANDLER_PATCHED.removeprefix(snippets.SPDX_HEADER),
        inc: "VALUE = undefined_name\n",
    }
    found = {r.hook: r.findings for r in precommit.check_files(old, new, python, 2026)}
    last = new[HELPER].count("\n")
    assert [(f.path, f.line, f.message[:4]) for f in found["flake8"]] == [
        (HELPER, last, "E731"),
        (inc, 1, "F821"),
    ]
    assert [(f.line, f.message[:4]) for f in found["ruff"]] == [(4, "F401"), (last, "E731")]
    assert found["ruff"][0].message.endswith("[fixable: ruff --fix would change the file]")
    assert [(f.path, f.line, f.message) for f in found["codespell"]] == [
        (HELPER, last, "teh ==> the")
    ]
    assert [(f.path, f.line) for f in found["SPDX header"]] == [(inc, 1), (HANDLER, 1)]
    assert found["isort"] == found["black"] == ()


def test_ruff_json_of_0_5_2_becomes_findings_with_repository_paths() -> None:
    row = {"code": "E731", "message": "Do not assign", "filename": f"/r/{HELPER}", "fix": None}
    syntax = {"code": None, "message": "SyntaxError: x", "filename": f"/r/{HELPER}"}
    report = [row | {"location": {"row": 5}}, syntax | {"location": {"row": 9}}]
    found = precommit.parse_ruff(json.dumps(report), Path("/r"))
    assert [(f.hook, f.path, f.line, f.message) for f in found] == [
        ("ruff", HELPER, 5, "E731 Do not assign"),
        ("ruff", HELPER, 9, "syntax-error SyntaxError: x"),
    ]


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
def test_the_dco_rule_wants_a_sign_off_by_the_author(message: str, found: tuple | None) -> None:
    good = CommitInfo("a" * 40, "t", JANE, JANE, f"perf: x\n\nSigned-off-by: {JANE}\n", False)
    tested = CommitInfo("b" * 40, "t", JANE, JANE, message, False)
    result = precommit.check_commits([good, tested], ["0001-x.patch", "0002-y.patch"])
    assert result.checked == ("0001-x.patch (commit message)", "0002-y.patch (commit message)")
    if found is None:
        assert result.findings == ()
    else:
        [finding] = result.findings
        label = "0002-y.patch (commit message)"
        assert (finding.hook, finding.path, finding.line) == ("DCO", label, found[0])
        assert found[1] in finding.message
    with pytest.raises(ToolkitError, match="git am made 1 commits of 2 patches"):
        precommit.check_commits([good], ["0001-x.patch", "0002-y.patch"])


LOOSE = (  # case, spacing and bare comment lines between, as upstream allows them
    "# spdx-filecopyrighttext:  Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. "
    "All rights reserved.\n#\n# SPDX-License-Identifier:   Apache-2.0\n"
)


NO_HEADER = (
    "no SPDX header ('# SPDX-FileCopyrightText: Copyright (c) <year> NVIDIA CORPORATION & "
    "AFFILIATES. All rights reserved.' then '# SPDX-License-Identifier: Apache-2.0')"
)


@pytest.mark.parametrize(
    ("path", "text", "found"),
    [
        ("a/x.py", SPDX_HEADER + BODY, []),
        ("a/x.py", SPDX_HEADER.replace("2025-2026", "2026") + BODY, []),
        ("a/x.py", LOOSE + BODY, []),
        ("a/x.rs", SPDX_HEADER.replace("# ", "// ") + BODY, []),
        ("a/x.py", BODY, [(1, NO_HEADER)]),
        ("a/x.py", SPDX_HEADER.split("\n")[0] + "\n" + BODY, [(1, "no SPDX")]),  # half
        ("a/x.py", SPDX_HEADER.replace("Apache-2.0", "MIT") + BODY, [(1, "no SPDX")]),
        ("a/x.rs", SPDX_HEADER + BODY, [(1, "no SPDX header ('// SPDX")]),  # `//` files
        (
            "a/x.py",
            "#!/usr/bin/env python3\n" + SPDX_HEADER.replace("2025-2026", "2024"),
            [(2, "copyright year 2024 is older than the commit (2026)")],
        ),
        ("a/README.md", BODY, []),
        ("a/e.pyi", BODY, []),
        (".github/x.py", BODY, []),
        ("a/blob.bin", BODY, []),
        ("a/__init__.py", "", []),  # empty
    ],
)
def test_the_spdx_rule(path: str, text: str, found: list[tuple[int, str]]) -> None:
    got = precommit.spdx_check(path, text, 2026)
    assert [(f.hook, f.path, f.line) for f in got] == [("SPDX header", path, n) for n, _ in found]
    assert all(f.message.startswith(why) for f, (_, why) in zip(got, found, strict=True))


def test_the_findings_table_shows_the_hooks_words() -> None:
    ruff = Finding("ruff", "a/x.py", 3, "F401 `os` imported but unused [fixable: ruff --fix]")
    table = precommit.findings_table([Finding("codespell", "a/x.py", 12, "teh ==> the"), ruff])
    printed = console.as_text([table])
    assert "[fixable: ruff --fix]" in printed  # never taken as markup
    assert "upstream pre-commit findings" in printed and "teh ==> the" in printed
