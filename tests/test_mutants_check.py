"""tools/mutants_check.py, the verdict of `nox -s mutants`, on mutmut results made here."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

CHECK = runpy.run_path(str(Path(__file__).parent.parent / "tools" / "mutants_check.py"))
RESULTS = {"m.x_f__mutmut_1": 1, "m.x_f__mutmut_2": 0, "m.x_f__mutmut_3": 36, "n.x_g__mutmut_1": 33}
E2, E21 = {"m.x_f__mutmut_2": "e"}, {"m.x_f__mutmut_2": "e", "n.x_g__mutmut_1": "e"}
PASS = "2 killed, 1 explained, 3 total, 1 timed out and run again alone: pass"
TWICE = "timed out twice, the second time alone, not explained: m.x_f__mutmut_3"


@pytest.mark.parametrize(
    ("explained", "args", "again", "said"),
    [  # m.x_f__mutmut_3 timed out: run again alone, it exits with `again`
        (E2, ["m.*"], 1, PASS),  # killed alone: the first time, it was the load
        (E2, ["m.*"], 36, TWICE),
        (E2, ["m.*"], -24, TWICE),
        (E2, ["m.*"], 0, "survived, not explained: m.x_f__mutmut_3"),
        ({}, ["m.*"], 1, "survived, not explained: m.x_f__mutmut_2"),
        (E2, ["*"], 1, "no tests, not explained: n.x_g__mutmut_1"),
        (E2 | {"m.x_f__mutmut_1": "e"}, ["m.*"], 1, "killed now, remove its"),
        (E2 | {"m.x_gone__mutmut_1": "e"}, ["m.*"], 1, "no such mutant"),
        (E21, ["m.*"], 1, PASS),
        (E21, ["m.*", "--complete"], 1, "never tested"),
        (E21, ["n.*"], 1, "0 killed, 1 explained, 1 total: pass"),  # none timed out: none again
    ],
)
def test_a_survivor_must_be_explained_and_an_explanation_must_be_of_one(
    tmp_path: Path, capsys, explained: dict, args: list, again: int, said: str
) -> None:
    meta = tmp_path / "mutants" / "m" / "f.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": RESULTS}))
    (tmp_path / "e.toml").write_text("".join(f'"{k}" = "{v}"\n' for k, v in explained.items()))
    run_again: list[list[str]] = []

    def rerun(names: list[str], folder: Path) -> None:  # as mutmut saves its result
        run_again.append(names)
        meta.write_text(json.dumps({"exit_code_by_key": RESULTS | dict.fromkeys(names, again)}))

    where = ["--mutants", str(tmp_path / "mutants"), "--explained", str(tmp_path / "e.toml")]
    status = CHECK["main"]([*where, *args], rerun)
    out, err = capsys.readouterr()
    assert said in out + err
    assert status == (0 if said.endswith("pass") else 1)
    assert run_again == ([["m.x_f__mutmut_3"]] if "m.*" in args or "*" in args else [])
