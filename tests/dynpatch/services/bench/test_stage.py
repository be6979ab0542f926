"""``bench``'s stage: its refusal without valgrind, the command a person reruns, how it
says it counted, the reference it records, the reviewer's script it runs."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from dynpatch import evidence, series
from dynpatch.cli import main
from dynpatch.errors import ToolkitError
from dynpatch.services import variants
from dynpatch.services.bench import report, stage
from dynpatch.services.bench.plan import REFERENCE
from dynpatch.services.trees import Trees
from dynpatch.verbs import bench
from dynpatch.workspace import Workspace
from tests.fixtures import bench as synthetic
from tests.fixtures.pr import sample
from tests.fixtures.synthetic import REPO, write_pin

RATIOS = ("patched/baseline", "patched/baseline handler_own")  # the mutant is not recorded


def test_missing_valgrind_is_one_line_saying_how_to_install_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "dynamo.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["bench"]) == 2
    err = capsys.readouterr().err
    assert err == "error: valgrind not found: apt-get install valgrind\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dynamo.toml"]  # nothing written


def test_the_rerun_command_names_what_was_asked_for() -> None:
    assert bench._command(bench.BenchOptions()) == "nox -s bench"
    both = bench.BenchOptions(mutant=True, record=True)
    assert bench._command(both) == "nox -s bench -- --mutant --record"


def test_the_how_line_says_what_was_counted_with_what_on_which_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cpuinfo = SimpleNamespace(is_file=lambda: True, read_text=lambda: "model name\t: A CPU\n")
    monkeypatch.setattr(stage, "Path", lambda _path: cpuinfo)
    env = {"environment": {"python": "3.11.7", "implementation": "CPython"}}
    how = stage.how("valgrind-3.19.0", env, ["setarch", "x86_64", "-R"])
    assert how["environment"] == {"PYTHONHASHSEED": "0", "DYN_LOG": "error"}
    assert stage.how_line(how).startswith(
        "how: valgrind-3.19.0 --tool=callgrind --instr-atstart=no --collect-atstart=no "
        "(counting switched on around the replayed requests only), CPython 3.11.7 on "
        f"{platform.machine()} (A CPU x{os.cpu_count()}), PYTHONHASHSEED=0 DYN_LOG=error, "
        "address-space randomisation off (setarch -R); 1 counted request per case after 1 warm-up"
    )


def test_the_reference_replaces_its_two_files_whole_and_keeps_the_folder_s_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report, "plot_png", lambda trees: f"PNG {sorted(trees)}".encode())
    ws = Workspace(tmp_path)
    ws.bench_docs.mkdir(parents=True)
    (ws.bench_docs / "per_chunk_cost.py").write_text("print('the reviewer script')\n")
    (ws.bench_docs / "instructions.png").write_bytes(b"old")
    trees = {**synthetic.counted_trees(), "mutant": synthetic.tree_counts("mutant", (1, 1))}
    keys = ("code_sha256", "series_sha256", "base", "release")
    data = {"trees": {**dict.fromkeys(keys, "x"), "design": "delta"}, "what": "w", "how": {}}
    data |= {
        "agreement": {},
        "gates": [],
        "requests": {"256x4": {"alternative": 9, "alternative/baseline": 0.9}},
    }
    evidence.replace_files(
        ws.bench_docs, stage.reference(data, trees, "nox -s bench -- --record"), ws.locks
    )
    assert sorted(p.name for p in ws.bench_docs.iterdir()) == [
        "instructions.json",
        "instructions.png",
        "per_chunk_cost.py",
    ]
    assert (ws.bench_docs / "instructions.png").read_bytes() == b"PNG ['baseline', 'patched']"
    ref = json.loads((ws.bench_docs / "instructions.json").read_text())
    assert ref["code_sha256"] == "x" and ref["command"] == "nox -s bench -- --record"
    assert set(ref["requests"]["256x4"]) == {"chunks", "baseline", "patched", *RATIOS}
    assert ref["alternative/baseline"] == {"256x4": 0.9} and ref["design"] == "delta"


def test_a_bench_whose_series_changed_while_it_counted_saves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An apply rewrites patches/ while the trees are counted: the record is of the series
    the trees were built from, so `bench --record` ends in the one error line, and neither
    the record nor the reference is written."""
    ws = Workspace(tmp_path)
    write_pin(ws.pin, "9.9.9", "w.whl", "0" * 64)
    synthetic.write_series(tmp_path, synthetic.patch_text()).rename(ws.patches)
    built = series.series_digest(ws.patches)

    def prepare_trees(_checkout, patches: Path, _dest) -> Trees:
        digests = (series.series_digest(patches), series.code_digest(patches))
        return Trees(tmp_path / "b", tmp_path / "p", "b" * 40, *digests)

    def counting(*_args) -> dict:
        (ws.patches / "0001-p.patch").write_text(synthetic.patch_text(tail="\n"))  # an apply
        found = _found(synthetic.counted_trees()["baseline"], 8.0)
        del found["counts"]["mutant"]
        return found | {"hello": {}, "layout": []}

    monkeypatch.setattr(bench, "preflight", lambda: "valgrind")
    monkeypatch.setattr(stage, "preflight", lambda: "valgrind")
    monkeypatch.setattr(stage.valgrind, "version", lambda _path: "valgrind-3.19.0")
    release = SimpleNamespace(release=SimpleNamespace(version="9.9.9"))
    monkeypatch.setattr(bench, "pinned", lambda args, ws: (None, release))
    monkeypatch.setattr(stage, "prepare_trees", prepare_trees)
    monkeypatch.setattr(stage, "rerun", lambda *_: sample("bench", "b", "d", "delta").facts.script)
    monkeypatch.setattr(variants, "build", lambda _src, dest, _edit: dest)
    monkeypatch.setattr(stage, "_measure", counting)
    monkeypatch.setattr(report, "plot_png", lambda _counts: b"PNG")
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "--record"]) == 2
    now = series.series_digest(ws.patches)
    assert capsys.readouterr().err == (
        f"error: {ws.patches} changed while bench ran (its trees hold series sha256 "
        f"{built[:12]}, patches/ now {now[:12]}): nothing saved; rerun it\n"
    )
    assert not ws.evidence.exists() and not ws.bench_docs.exists()


FAST_TIMEIT = (
    "import runpy, sys, timeit; timeit.Timer.autorange = lambda self, callback=None: (200, 0.0); "
    'sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")'
)


def test_the_reviewer_s_script_runs_as_a_reviewer_runs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the top of a tree, nothing on the path (it loads the helper by its path); on a
    tree whose helper has no new_token_ids, no "delta" column; on the one-liner, "before" is
    it with the copy put back; ``--json``, one object of the runs."""
    from tests.fixtures.snippets import HELPER, HELPER_PATCHED

    monkeypatch.delenv("PYTHONPATH", raising=False)
    # timeit takes 200 calls a sample: the timings are not checked, and autorange is slow.
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} -c '{FAST_TIMEIT}' \"$@\"\n")
    python.chmod(0o755)
    one_liner = variants.drop_copy(HELPER)
    trees = (("patched", HELPER_PATCHED), ("baseline", HELPER), ("one-liner", one_liner))
    for name, text in trees:
        helper = tmp_path / name / "components/src/dynamo/common/backend/logprobs.py"
        helper.parent.mkdir(parents=True)
        helper.write_text(text)
        # A plain checkout's package __init__ needs dynamo's compiled runtime.
        (helper.parent / "__init__.py").write_text("raise ImportError('no dynamo._core')\n")
    saved = stage.rerun(str(python), tmp_path / "patched", REPO.rerun)
    assert saved.sha256 == hashlib.sha256(REPO.rerun.read_bytes()).hexdigest()
    for tree, kind, columns in (
        ("patched", "delta", {"before", "delta", "one_liner"}),
        ("baseline", "before", {"before", "one_liner"}),
        ("one-liner", "one-liner", {"before", "one_liner"}),
    ):
        ran = stage.rerun(str(python), tmp_path / tree, REPO.rerun)
        assert ran.tree == kind and list(ran.per_chunk_us) == ["256", "4096", "16384"]
        assert list(ran.request_ms) == ["4096", "16384"] and set(ran.per_chunk_us["256"]) == columns
        assert len(ran.per_chunk_us["256"]["before"].runs) == 5
    lines = subprocess.run(
        [python, REPO.rerun], cwd=tmp_path / "patched", capture_output=True, text=True
    ).stdout.splitlines()  # as a reviewer reads it
    assert lines[0].endswith("the delta tree") and [ln.split()[0] for ln in lines[3:]] == [
        *("256", "4096", "16384", "4096-token", "16384-token")
    ]
    with pytest.raises(ToolkitError, match="not found: run from the top of a dynamo checkout"):
        stage.rerun(str(python), tmp_path, REPO.rerun)  # no helper there


WHAT = {"alternative": "the other design", "mutant": "the copy planted back"}


def _found(mutant_counts, mutant_alloc: float, again=None) -> dict:
    """What the measurement found: the synthetic trees, a mutant, its allocation slope."""
    trees = synthetic.counted_trees()
    alloc = {t: {"1": 0.0, "4": 0.0} for t in ("baseline", "patched", "alternative")}
    alloc["mutant"] = {"1": mutant_alloc, "4": mutant_alloc}
    how = stage.how("valgrind-3.19.0", {}, [])
    counts = {**trees, "alternative": trees["patched"], "mutant": mutant_counts}
    found = {"counts": counts, "how": how, "again": again or trees, "finished_after_s": {}}
    return found | {"alloc": {"slope_bytes_per_token": alloc}, "ab": {"line": "A/B"}}


def test_the_mutant_must_miss_every_gate_and_the_runs_must_agree() -> None:
    trees = synthetic.counted_trees()
    data, lines, passed = stage._judge(_found(trees["baseline"], 8.0), WHAT)
    assert passed and data["verdict"] == "pass"
    assert "mutant: every gate misses the planted history copy (4 of them)" in lines
    # A mutant as good as the patched tree, or only as frugal in allocation: gates blind.
    as_good = synthetic.tree_counts("mutant", (77_000_000, 140_000_000))
    data, lines, passed = stage._judge(_found(as_good, 0.0), WHAT)
    assert not passed and data["verdict"] == "fail" and all(g["met"] for g in data["gates"])
    assert "mutant: NOT caught by gate 1, gate 2, gate 3, gate 4" in lines
    _data, lines, passed = stage._judge(_found(trees["baseline"], 0.0), WHAT)
    assert not passed and "mutant: NOT caught by gate 4" in lines
    # The two runs apart: the verdict fails though every gate of the tree is met.
    apart = {**trees, "patched": synthetic.tree_counts("patched", (78_000_000, 140_000_000))}
    data, _lines, passed = stage._judge(_found(trees["baseline"], 8.0, again=apart), WHAT)
    assert not passed and all(g["met"] for g in data["gates"][:4])


def test_without_a_mutant_the_record_holds_the_gates_of_the_trees_counted() -> None:
    found = _found(synthetic.counted_trees()["baseline"], 8.0)
    del found["counts"]["mutant"]
    data, lines, passed = stage._judge(found, WHAT)
    assert passed
    saved = {"what", "how", "agreement", "alloc", "gates", "ab", "verdict", "finished_after_s"}
    assert saved | {"counts", "alternative_gates", "mutant_gates"} <= set(data)
    assert (len(data["alternative_gates"]), data["mutant_gates"]) == (4, [])
    assert lines.index("gates met: 5 of 5") < lines.index("alternative: the other design")


@pytest.mark.parametrize("passed", [True, False])
def test_the_record_says_the_verdict_with_the_table_and_lines(passed: bool) -> None:
    counts = synthetic.counted_trees()
    built = Trees(Path("b"), Path("p"), "b" * 40, "1" * 64, "2" * 64)
    record = synthetic.measured(built, passed, counts).record("nox -s bench")
    assert (record.base, record.series_sha256, record.command) == (
        "b" * 40,
        "1" * 64,
        "nox -s bench",
    )
    assert record.passed is passed and record.problems == (() if passed else ("gate 1 missed",))
    assert (
        record.facts.missed == (() if passed else ("gate 1",)) and record.facts.mutant_met is None
    )
    base = counts["baseline"].request(REFERENCE).instructions
    assert record.facts.requests["256x4"]["baseline"].runs == (base, base)  # counted twice
    assert record.facts.ratio("4096x1", "patched") == 140_000_000 / 260_000_000
    assert record.summary == "\n".join(report.table(counts)) + "\n\n    gate lines\n"

    assert record.design == "delta" and record.facts.script is not None
    assert record.details["trees"]["release"] == "9.9.9" and "counts" not in record.details
    long = report.figures(counts)["per_chunk"]["16384x1"]
    assert record.facts.late_vs_early_pct == {t: v["late_vs_early_pct"] for t, v in long.items()}
    counts = {**counts, "mutant": counts["baseline"]}
    planted = synthetic.measured(built, True, counts, blind=True).record("c")
    assert planted.facts.mutant_met == ("gate 2",)
    assert planted.problems == ("the planted copy meets gate 2",)
    assert synthetic.measured(built, True, counts).record("c").facts.mutant_met == ()
    assert (
        planted.facts.ratio("4096x1", "other") is None
        and planted.facts.ratio("x", "patched") is None
    )
