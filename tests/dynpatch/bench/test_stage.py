"""``bench`` from the command line: its refusals, each one line, the command a person
reruns."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from dynpatch import bench, evidence
from dynpatch.bench import stage
from dynpatch.cli import main
from dynpatch.errors import ToolkitError


def one_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert captured.out == ""
    return lines[0]


def test_missing_valgrind_is_one_line_saying_how_to_install_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    got = one_error(capsys, ["bench", "--out", str(tmp_path / "o")])
    assert got == "error: valgrind not found: apt-get install valgrind"
    assert not (tmp_path / "o").exists()


def test_the_rerun_command_names_what_was_asked_for() -> None:
    assert stage._command(bench.BenchOptions()) == "nox -s bench"
    both = bench.BenchOptions(mutant=True, record=True)
    assert stage._command(both) == "nox -s bench -- --mutant --record"


def test_the_how_line_says_what_was_counted_with_what() -> None:
    how = stage._how(
        "valgrind-3.19.0", {"environment": {"python": "3.11.7", "implementation": "CPython"}}
    )
    assert how["environment"] == {"PYTHONHASHSEED": "0", "DYN_LOG": "error"}
    assert how["tool"] == "callgrind"
    assert stage.how_line(how).startswith(
        "how: valgrind-3.19.0 callgrind (--instr-atstart=no --collect-atstart=no; counting "
        "switched on around the replayed requests only), CPython 3.11.7 on "
    )


FAST_TIMEIT = (
    "import runpy, sys, timeit; timeit.Timer.autorange = lambda self, callback=None: (200, 0.0); "
    'sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")'
)


def test_the_reviewer_s_script_runs_as_a_reviewer_runs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the top of a tree, nothing on the path (it loads the helper by its path, not
    through dynamo's package); on a tree whose helper has no new_token_ids, the "without"
    column only."""
    from tests.fixtures.snippets import HELPER, HELPER_PATCHED

    monkeypatch.delenv("PYTHONPATH", raising=False)
    # An interpreter whose timeit takes 200 calls a sample: the script's timings are
    # not what is checked here, and a real autorange takes seconds.
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} -c '{FAST_TIMEIT}' \"$@\"\n")
    python.chmod(0o755)
    for name, text in (("patched", HELPER_PATCHED), ("baseline", HELPER)):
        helper = tmp_path / name / "components/src/dynamo/common/backend/logprobs.py"
        helper.parent.mkdir(parents=True)
        helper.write_text(text)
        # A plain checkout's package __init__ needs dynamo's compiled runtime.
        (helper.parent / "__init__.py").write_text("raise ImportError('no dynamo._core')\n")
    saved = stage.rerun(str(python), tmp_path / "patched")
    assert saved["sha256"] == hashlib.sha256(evidence.RERUN.read_bytes()).hexdigest()
    lines = saved["output"].splitlines()
    assert lines[1].split() == ["history", "without", "(us)", "with", "(us)", "ratio"]
    assert [ln.split()[0] for ln in lines[2:]] == ["256", "4096", "16384"]
    assert all(ln.endswith("x") for ln in lines[2:])
    base = stage.rerun(str(python), tmp_path / "baseline")["output"].splitlines()
    assert "has no new_token_ids (the tree before this change): 'without' only" in base[1]
    assert base[2].split() == ["history", "without", "(us)"]
    assert [len(ln.split()) for ln in base[3:]] == [2, 2, 2]
    with pytest.raises(ToolkitError, match="not found: run from the top of a dynamo checkout"):
        stage.rerun(str(python), tmp_path)  # no helper there
