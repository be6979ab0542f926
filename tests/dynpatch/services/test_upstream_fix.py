"""A release on which the series drifted, judged by running its code: synthetic releases
(tests/fixtures/upstream_fixes.py) each replayed for real in a child through its own
response loop, cumulative token ids watching what is read, against the series' own
patched tree. The syntax finds a candidate in some; only the run tells fixes from
look-alikes, whatever their shape. Then what decides, without a child: the verdict on what
children saw, how a release's code says it fixes the defect, and settling a drifted release."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from codemods.series import run_series
from dynpatch import evidence, series
from dynpatch.errors import ToolkitError
from dynpatch.evidence import Spread
from dynpatch.services import upstream_fix
from dynpatch.services.export import ApplyReport
from dynpatch.workspace import Workspace
from tests.fixtures import bench, snippets
from tests.fixtures.pr import sample
from tests.fixtures.replay import release_files, write_tree
from tests.fixtures.synthetic import SYNTHETIC_FILES
from tests.fixtures.upstream_fixes import FIXES, LOOK_ALIKES, variant

PYTHON = Path(sys.executable)
# what each is judged: fixed, and how; or not, and why
JUDGED = {
    "forwarded": (True, "by a keyword of its own (extract_from_completion_output takes"),
    "one-liner": (True, "by the one-line alternative, no keyword: the series can be retired"),
    "ids-taken-one-by-one": (True, "by another design, no keyword"),
    "tuple-kept-for-the-cursor-check": (
        False,
        "chunk 1 of stream 1-choice-one-token-top1 read 1 token id(s) outside its delta, of "
        "a history of 1 (",
    ),
    "islice-from-the-start": (False, "chunk 1 of stream 1-choice-one-token-top1 read 1 token"),
    "window-cut-from-the-end": (False, "stream logprobs-lag-sampled: chunk 0: log_probs"),
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> upstream_fix.Reference:
    """The synthetic release with the series, as the series makes it."""
    src = write_tree(
        tmp_path_factory.mktemp("reference"),
        release_files(snippets.HELPER_PATCHED, snippets.HANDLER_PATCHED),
    )
    return upstream_fix.Reference(src, PYTHON, "the series", snippets.HELPER)


def test_every_variant_is_judged() -> None:
    assert set(JUDGED) == set(FIXES) | set(LOOK_ALIKES)


@pytest.mark.parametrize("name", JUDGED)
def test_the_run_tells_a_fix_from_a_look_alike(name: str, tmp_path: Path, reference) -> None:
    files = {**SYNTHETIC_FILES, **release_files(*variant(name))}
    result = run_series(lambda path: files.get(path.removeprefix("components/src/")))
    assert result.drifted and not result.fixed_upstream  # the syntax never says fixed
    tree = write_tree(tmp_path / "release", files).parent.parent
    report = ApplyReport(result)
    paths = {"evidence": tmp_path / "e", "patches": tmp_path / "p", "bench_docs": tmp_path / "d"}
    ws = type("Ws", (), paths)()
    how, kept = upstream_fix.describe(report, tree, reference, ws)  # type: ignore[arg-type]
    fixed, why = upstream_fix.judge(
        tree / "components" / "src", reference, PYTHON, tmp_path / "l.log", name
    )
    want_fixed, said = JUDGED[name]
    assert fixed is want_fixed, why
    if fixed:
        assert f"{how}{kept}".startswith(said), how
        assert why.startswith("run: ") and why.endswith("equal those of the series")
    else:
        assert why.startswith(said), why
    judged = result.judged(fixed, why, how)
    assert judged.fixed_upstream is fixed
    if not fixed:  # first where the syntax found a candidate, else after the drift
        problems = judged.problems()
        if result.candidate:
            assert problems[0] == f"upstream's own fix? {how}: {why}"
        else:
            assert problems[-1] == f"not fixed another way either, by a run of its code: {why}"


def _stream(given: list[list[int]], records: list[str]) -> dict:
    return {"name": "s", "given": {"reads": given, "records": records}}


def test_a_judgement_that_saw_nothing_is_not_a_fix() -> None:
    chunk = '{"kind":"chunk","value":{"index":0,"token_ids":[1]}}'
    quiet = {"scenarios": [_stream([[0, 0]], [chunk])]}
    assert upstream_fix.verdict(quiet, quiet, "ref") == (
        False,
        "no chunk carried log_probs: the judgement never saw the helper report",
    )
    empty = {"scenarios": [_stream([], [])]}
    assert upstream_fix.verdict(empty, empty, "ref") == (
        False,
        "stream s gave no chunk: the judgement saw nothing",
    )
    other = {"scenarios": [_stream([[0, 0]], [])]}
    assert upstream_fix.verdict(quiet, other, "ref") == (
        False,
        "stream s: 1 chunks where ref gives 0",
    )


CHUNK = '{{"kind":"chunk","value":{{"index":0,"token_ids":[{}],"log_probs":[{}]}}}}'
A, B = CHUNK.format(1, -0.5), CHUNK.format(2, -0.25)


def _run(*streams: tuple[str, list, list]) -> dict:
    return {"scenarios": [_stream(r, rec) | {"name": n} for n, r, rec in streams]}


def test_the_verdict_names_the_first_read_outside_a_delta_else_the_first_difference() -> None:
    read = _run(("s", [[0, 0], [2, 5]], [A, B]), ("t", [[1, 3]], [A]))
    assert upstream_fix.verdict(read, read, "ref") == (
        False,
        "chunk 1 of stream s read 2 token id(s) outside its delta, of a history of 5 (2 chunks "
        "did, 3 token ids in all)",
    )
    one = _run(("s", [[0, 0]], [A]), ("t", [[0, 0], [1, 1]], [A, B]))  # one chunk is enough
    assert upstream_fix.verdict(one, one, "ref") == (
        False,
        "chunk 1 of stream t read 1 token id(s) outside its delta, of a history of 1 (1 chunks "
        "did, 1 token ids in all)",
    )
    mine = _run(("s", [[0, 0], [0, 1]], [A, B]))
    other = _run(("s", [], [A, CHUNK.format(2, -0.5)]))
    assert upstream_fix.verdict(mine, other, "ref") == (
        False,
        "stream s: chunk 1: log_probs [-0.25] where ref gives [-0.5]",
    )
    assert upstream_fix.verdict(mine, _run(), "ref") == (
        False,
        "stream s: 2 chunks where ref gives 0",
    )
    assert upstream_fix.verdict(mine, mine, "ref") == (
        True,
        "run: 2 chunks of 1 streams read no token id outside their delta, and their ids and "
        "logprobs equal those of ref",
    )


TOP = [{"1": -0.5, "2": -1.5}]


@pytest.mark.parametrize(
    ("field", "theirs"),
    [("index", 1), ("token_ids", [2]), ("log_probs", [-0.25]), ("top_logprobs", TOP[:0])],
)
def test_a_difference_in_any_field_of_the_fix_is_not_fixed(field: str, theirs: object) -> None:
    value = {"index": 0, "token_ids": [1], "log_probs": [-0.5], "top_logprobs": TOP}
    chunks = [{"kind": "chunk", "value": v} for v in (value, value | {field: theirs})]
    mine, other = (_run(("s", [[0, 0]], [json.dumps(c)])) for c in chunks)
    assert upstream_fix.verdict(mine, other, "ref") == (
        False,
        f"stream s: chunk 0: {field} {json.dumps(value[field])} where ref gives "
        f"{json.dumps(theirs)}",
    )


def _release(name: str, tmp: Path) -> tuple[ApplyReport, Path, Workspace]:
    """The series run on release ``name``, its tree, and a workspace with a series in ``tmp``."""
    files = {**SYNTHETIC_FILES, **release_files(*variant(name))}
    report = ApplyReport(run_series(lambda path: files.get(path.removeprefix("components/src/"))))
    ws = Workspace(tmp)
    bench.write_series(tmp, bench.patch_text()).rename(ws.patches)
    return report, write_tree(tmp / "release", files).parent.parent, ws


def _bench(ws: Workspace, design: str = "delta", alt: object = 0.872, digest: str = "") -> None:
    """A bench record for ``ws``'s series (or the series ``digest``)."""
    made = digest or series.series_digest(ws.patches)
    record = sample("bench", "b" * 40, made, design)
    rows = {"baseline": Spread((1000.0,)), "patched": Spread((855.0,))}
    rows |= {"alternative": Spread((alt * 1000,))} if isinstance(alt, float) else {}
    facts = dataclasses.replace(record.facts, requests={"256x4": rows})
    details = {"trees": {"design": design, "release": "9.9.9"}}
    path = evidence.path(ws.evidence, "bench", record.base, made)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = dataclasses.asdict(dataclasses.replace(record, facts=facts, details=details))
    path.write_text(json.dumps(data))


KEPT = (
    ", or kept for what it saves beyond it (0.855 against 0.872 of the baseline's instructions "
    "per request at 256 x 4, on ai-dynamo 9.9.9)"
)


@pytest.mark.parametrize(
    ("name", "how", "kept"),
    [
        (
            "forwarded",
            "by a keyword of its own (extract_from_completion_output takes `delta_ids`",
            "",
        ),
        ("one-liner", "by the one-line alternative, no keyword", KEPT),
        ("ids-taken-one-by-one", "by another design, no keyword", " from here on"),
        ("islice-from-the-start", "by another design, no keyword", " from here on"),
    ],
)
def test_how_a_release_fixes_it_is_told_from_its_code(
    name: str, how: str, kept: str, tmp_path: Path, reference
) -> None:
    report, tree, ws = _release(name, tmp_path)
    _bench(ws)
    said, then = upstream_fix.describe(report, tree, reference, ws)
    assert said.startswith(how)
    assert then == f": the series can be retired{kept}"


@pytest.mark.parametrize(
    "saved",
    [
        {"design": "one-liner"},  # the one-liner's own bench: no alternative to it
        {"alt": None},
        {"digest": "0" * 64},  # another series'
        None,  # not JSON
    ],
)
def test_without_the_figures_for_this_series_nothing_is_kept(
    saved: dict | None, tmp_path: Path, reference
) -> None:
    report, tree, ws = _release("one-liner", tmp_path)
    if saved is None:
        made = series.series_digest(ws.patches)
        path = evidence.path(ws.evidence, "bench", "b" * 40, made)
        path.parent.mkdir(parents=True)
        path.write_text("{")
    else:
        _bench(ws, **saved)
    assert upstream_fix.describe(report, tree, reference, ws)[1] == ": the series can be retired"
    (tree / upstream_fix.TARGET.path).unlink()  # no helper at all: another design
    assert upstream_fix.describe(report, tree, reference, ws)[0] == "by another design, no keyword"


def test_without_a_saved_bench_the_committed_reference_of_the_same_code_is_kept(
    tmp_path: Path, reference
) -> None:
    report, tree, ws = _release("one-liner", tmp_path)
    ws.bench_docs.mkdir(parents=True)
    ref = {
        "code_sha256": series.code_digest(ws.patches),
        "design": "delta",
        "release": "9.9.9",
        "requests": {"256x4": {"patched/baseline": 0.856}},
        "alternative/baseline": {"256x4": 0.869},
    }
    (ws.bench_docs / "instructions.json").write_text(json.dumps(ref))
    kept = upstream_fix.describe(report, tree, reference, ws)[1]
    assert (
        "(0.856 against 0.869 of the baseline's instructions per request at 256 x 4, on ai-dynamo 9.9.9)"
        in kept
    )
    ref["code_sha256"] = "0" * 64  # the reference of other code says nothing of this series
    (ws.bench_docs / "instructions.json").write_text(json.dumps(ref))
    assert upstream_fix.describe(report, tree, reference, ws)[1] == ": the series can be retired"


@pytest.mark.parametrize(
    ("fixed", "why", "how"),
    [
        (True, "run: fine", "by the one-line alternative, no keyword: the series can be retired"),
        (False, "chunk 1 read", "by the one-line alternative, no keyword"),
        (None, "not judged: no such commit", "?"),  # the clone failed
    ],
)
def test_a_drifted_release_is_settled_by_a_run_and_one_that_cannot_run_is_not_fixed(
    fixed: bool | None, why: str, how: str, tmp_path: Path, monkeypatch, reference
) -> None:
    report, release, ws = _release("one-liner", tmp_path)
    seen = []

    def clone_at(path: Path, base: str, tree: Path) -> None:
        seen.append((path, base, tree.parent.parent, tree.parent.name[:6]))
        if fixed is None:
            raise ToolkitError("no such commit")
        shutil.copytree(release, tree)

    def judge(src: Path, ref, python: Path, log: Path, label: str) -> tuple[bool, str]:
        seen.append((src.relative_to(src.parents[2]), ref, python, log, label))
        return bool(fixed), why

    monkeypatch.setattr(upstream_fix.gitio, "clone_at", clone_at)
    monkeypatch.setattr(upstream_fix, "judge", judge)
    checkout = SimpleNamespace(path=tmp_path, base="b", release=SimpleNamespace(version="9.9.9"))
    log = tmp_path / "judge.log"
    upstream_fix.settle(report, checkout, lambda: PYTHON, ws, log, lambda: reference)  # type: ignore[arg-type]
    assert (report.result.verdict, report.result.how) == (why, how)
    assert report.result.fixed_upstream is bool(fixed)
    assert seen.pop(0) == (tmp_path, "b", ws.scratch, "judge-")  # a fresh clone of the base
    assert seen == (
        []
        if fixed is None
        else [(Path("tree/components/src"), reference, PYTHON, log, "ai-dynamo 9.9.9")]
    )
    unchanged = ApplyReport(
        run_series(lambda path: SYNTHETIC_FILES.get(path.removeprefix("components/src/")))
    )
    before = unchanged.result
    upstream_fix.settle(unchanged, checkout, lambda: PYTHON, ws, log, lambda: reference)  # type: ignore[arg-type]
    assert unchanged.result is before  # nothing drifted: nothing judged
