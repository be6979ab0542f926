"""tools/mutants_check.py, the verdict of `nox -s mutants`, on mutmut results made here."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

CHECK = runpy.run_path(str(Path(__file__).parent.parent / "tools" / "mutants_check.py"))
RESULTS = {"m.x_f__mutmut_1": 1, "m.x_f__mutmut_2": 0, "m.x_f__mutmut_3": 36, "n.x_g__mutmut_1": 33}


@pytest.mark.parametrize(
    ("explained", "args", "said"),
    [
        ({"m.x_f__mutmut_2": "equivalent"}, ["m.*"], "2 killed, 1 explained, 3 total: pass"),
        ({}, ["m.*"], "survived, not explained: m.x_f__mutmut_2"),
        ({"m.x_f__mutmut_2": "e"}, ["*"], "no tests, not explained: n.x_g__mutmut_1"),
        ({"m.x_f__mutmut_1": "e", "m.x_f__mutmut_2": "e"}, ["m.*"], "killed now, remove its"),
        ({"m.x_f__mutmut_2": "e", "m.x_gone__mutmut_1": "e"}, ["m.*"], "no such mutant"),
        ({"m.x_f__mutmut_2": "e", "n.x_g__mutmut_1": "e"}, ["m.*"], "3 total: pass"),
        ({"m.x_f__mutmut_2": "e", "n.x_g__mutmut_1": "e"}, ["m.*", "--complete"], "never tested"),
    ],
)
def test_a_survivor_must_be_explained_and_an_explanation_must_be_of_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], explained: dict, args: list, said: str
) -> None:
    (tmp_path / "mutants" / "m").mkdir(parents=True)
    (tmp_path / "mutants" / "m" / "f.py.meta").write_text(json.dumps({"exit_code_by_key": RESULTS}))
    (tmp_path / "e.toml").write_text("".join(f'"{k}" = "{v}"\n' for k, v in explained.items()))
    where = ["--mutants", str(tmp_path / "mutants"), "--explained", str(tmp_path / "e.toml")]
    status = CHECK["main"]([*where, *args])
    out, err = capsys.readouterr()
    assert said in out + err
    assert status == (0 if said.endswith("pass") else 1)
