"""tools/mutants_check.py, the verdict of `nox -s mutants`, on mutmut results made here."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

CHECK = runpy.run_path(str(Path(__file__).parent.parent / "tools" / "mutants_check.py"))
RESULTS = {"m.x_f__mutmut_1": 1, "m.x_f__mutmut_2": 0, "m.x_f__mutmut_3": 36, "n.x_g__mutmut_1": 33}
PASS = "2 killed, 1 explained, 3 total, 1 timed out and run again alone: pass"


def _check(tmp: Path, explained: dict, args: list, second: int = 1) -> tuple[int, str, list]:
    """(status, output, the names run again) of the check, a mutant timed out run again
    (as mutmut saves a result) with exit code ``second``."""
    meta = tmp / "mutants" / "m" / "f.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": RESULTS}))
    (tmp / "e.toml").write_text("".join(f'"{k}" = "{v}"\n' for k, v in explained.items()))
    again: list[list[str]] = []

    def rerun(names: list[str], folder: Path) -> None:
        again.append(names)
        saved = json.loads(meta.read_text())["exit_code_by_key"]
        meta.write_text(json.dumps({"exit_code_by_key": saved | dict.fromkeys(names, second)}))

    where = ["--mutants", str(tmp / "mutants"), "--explained", str(tmp / "e.toml")]
    return CHECK["main"]([*where, *args], rerun), again


@pytest.mark.parametrize(
    ("explained", "args", "said"),
    [
        ({"m.x_f__mutmut_2": "equivalent"}, ["m.*"], PASS),
        ({}, ["m.*"], "survived, not explained: m.x_f__mutmut_2"),
        ({"m.x_f__mutmut_2": "e"}, ["*"], "no tests, not explained: n.x_g__mutmut_1"),
        ({"m.x_f__mutmut_1": "e", "m.x_f__mutmut_2": "e"}, ["m.*"], "killed now, remove its"),
        ({"m.x_f__mutmut_2": "e", "m.x_gone__mutmut_1": "e"}, ["m.*"], "no such mutant"),
        ({"m.x_f__mutmut_2": "e", "n.x_g__mutmut_1": "e"}, ["m.*"], PASS),
        ({"m.x_f__mutmut_2": "e", "n.x_g__mutmut_1": "e"}, ["m.*", "--complete"], "never tested"),
    ],
)
def test_a_survivor_must_be_explained_and_an_explanation_must_be_of_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], explained: dict, args: list, said: str
) -> None:
    status, _again = _check(tmp_path, explained, args)
    out, err = capsys.readouterr()
    assert said in out + err
    assert status == (0 if said.endswith("pass") else 1)


@pytest.mark.parametrize(
    ("second", "said"),
    [
        (1, PASS),  # killed alone: it was the load
        (36, "timed out twice, the second time alone, not explained: m.x_f__mutmut_3"),
        (-24, "timed out twice, the second time alone, not explained: m.x_f__mutmut_3"),
        (0, "survived, not explained: m.x_f__mutmut_3"),
    ],
)
def test_a_mutant_that_timed_out_counts_by_its_run_again_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], second: int, said: str
) -> None:
    status, again = _check(tmp_path, {"m.x_f__mutmut_2": "e"}, ["m.*"], second)
    out, err = capsys.readouterr()
    assert (again, status) == ([["m.x_f__mutmut_3"]], 0 if second == 1 else 1)
    assert said in out + err and "1 timed out and run again alone" in out
    assert _check(tmp_path / "n", {}, ["n.*"], second)[1] == []  # none timed out: none again
