"""valgrind: the counted child's command line, and its dumps read back by label (refused
in one line when missing: test_stage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.bench import valgrind
from dynpatch.errors import ToolkitError

DUMP = """# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
part: 3

desc: Timerange: Basic block 100 - 900
desc: Trigger: Client Request: request-256x4-top1

positions: line
events: Ir
summary: 81393725

fn=(1) main
3 81393725
totals: 81393725
"""


def test_the_child_runs_under_callgrind_with_counting_off_at_start(tmp_path: Path) -> None:
    argv = valgrind.command("/usr/bin/valgrind", tmp_path, ["python", "-m", "x"])
    assert argv == [
        "/usr/bin/valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--collect-atstart=no",
        f"--callgrind-out-file={tmp_path / 'callgrind.out'}.%p",
        "python",
        "-m",
        "x",
    ]


def test_a_client_request_dump_gives_its_process_label_and_total() -> None:
    assert valgrind.parse_dump(DUMP) == (4242, "request-256x4-top1", 81393725)
    at_exit = DUMP.replace("Client Request: request-256x4-top1", "Program termination")
    assert valgrind.parse_dump(at_exit) is None
    with pytest.raises(ToolkitError, match="no totals line"):
        valgrind.parse_dump(DUMP.replace("totals: 81393725\n", ""))


def test_every_labelled_dump_of_a_folder_is_read_by_process_and_a_label_once(
    tmp_path: Path,
) -> None:
    at_exit = DUMP.replace("Client Request: request-256x4-top1", "Program termination")
    engine = DUMP.replace("request-256x4", "engine-256x4").replace("81393725", "13")
    (tmp_path / "callgrind.out.4242").write_text(at_exit)
    (tmp_path / "callgrind.out.4242.1").write_text(DUMP)
    (tmp_path / "callgrind.out.4242.2").write_text(engine)
    (tmp_path / "callgrind.out.4243.1").write_text(DUMP.replace("pid: 4242", "pid: 4243"))
    assert valgrind.read_parts(tmp_path) == {
        4242: {"request-256x4-top1": 81393725, "engine-256x4-top1": 13},
        4243: {"request-256x4-top1": 81393725},
    }
    (tmp_path / "callgrind.out.4242.3").write_text(DUMP)
    with pytest.raises(ToolkitError, match="process 4242 are labelled 'request-256x4-top1'"):
        valgrind.read_parts(tmp_path)


def test_address_randomisation_goes_off_only_where_setarch_may_turn_it_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert valgrind.fixed_layout() == []  # no setarch at all
    setarch = tmp_path / "setarch"
    setarch.write_text("#!/bin/sh\nexit 1\n")  # as in a container whose seccomp refuses it
    setarch.chmod(0o755)
    assert valgrind.fixed_layout() == []
    setarch.write_text('#!/bin/sh\nshift 2\nexec "$@"\n')
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    prefix = valgrind.fixed_layout()
    assert prefix[0] == str(setarch) and prefix[2] == "-R"
    argv = valgrind.command("valgrind", tmp_path, ["python"], prefix)
    assert argv[:4] == [*prefix, "valgrind"] and argv[-1] == "python"
