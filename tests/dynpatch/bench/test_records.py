"""The records of a bench run and their JSON form in bench.json (its keys are what the
saved evidence holds)."""

from __future__ import annotations

from dynpatch.bench import records
from dynpatch.bench.records import AllocSample, Bin, Case, CaseRun


def run(tokens: int = 256, choices: int = 1, alloc: list[AllocSample] | None = None) -> CaseRun:
    return CaseRun(Case(tokens, choices), 256, [9, 7], [1.0, 2.0], 1.5, [Bin(1, 2, 2, 1.5)], alloc)


def test_a_case_run_keeps_the_keys_and_their_order() -> None:
    data = run(alloc=[AllocSample(3, 100)]).to_json()
    assert list(data) == [
        "case",
        "chunks",
        "ops_ns",
        "per_op_chunk_median_ns",
        "chunk_median_ns",
        "bins",
        "alloc",
    ]
    assert data["case"] == {"tokens": 256, "choices": 1, "k": 1}
    assert data["bins"] == [{"lo": 1, "hi": 2, "ops": 2, "median_ns": 1.5}]
    assert data["alloc"] == [[3, 100]]


def test_a_case_run_without_samples_has_no_alloc_key() -> None:
    assert "alloc" not in run().to_json()
    assert run(alloc=[]).to_json()["alloc"] == []


def test_a_reference_pair_keeps_its_ops_and_medians_but_not_the_setup_reports() -> None:
    pair = records.ReferencePair(
        {"baseline": records.Ops([3, 1, 2]), "patched": records.Ops([2, 2])}, {"baseline": {}}
    )
    assert pair.to_json() == {
        "baseline": {"ops_ns": [3, 1, 2], "median_ns": 2},
        "patched": {"ops_ns": [2, 2], "median_ns": 2.0},
    }


def test_runs_of_finds_a_case_in_every_round_and_rounds_keep_the_tree_keys() -> None:
    rounds = [
        {"baseline": [run(256, 1), run(256, 4)], "patched": [run(256, 4)]},
        {"baseline": [run(256, 4)], "patched": []},
    ]
    assert len(list(records.runs_of(rounds, "baseline", 256, 4))) == 2
    assert list(records.runs_of(rounds, "patched", 256, 1)) == []
    data = records.rounds_to_json(rounds)
    assert [list(r) for r in data] == [["baseline", "patched"], ["baseline", "patched"]]
    assert len(data[0]["baseline"]) == 2
