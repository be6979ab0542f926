"""The child's entry point: which transport a command line asks for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dynpatch.replay import child


def test_a_wrong_command_line_prints_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert child.main([]) == 2
    assert child.main(["a", "b", "c"]) == 2
    assert "usage: python -m dynpatch.replay.child" in capsys.readouterr().err


def test_the_second_argument_chooses_the_transport(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tmp_path / "job.json"
    spec.write_text(json.dumps({"tree": "baseline"}))
    calls: list[tuple] = []
    monkeypatch.setattr(child.serve, "main", lambda job: calls.append(("serve", job)) or 0)
    monkeypatch.setattr(child.job, "main", lambda job, out: calls.append(("job", job, out)) or 3)
    assert child.main([str(spec), "--serve"]) == 0
    assert child.main([str(spec), str(tmp_path / "r.json")]) == 3
    assert calls == [
        ("serve", {"tree": "baseline"}),
        ("job", {"tree": "baseline"}, tmp_path / "r.json"),
    ]
