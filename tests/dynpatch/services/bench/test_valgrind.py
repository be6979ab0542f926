"""valgrind: the counted child's command line, and its dumps read back by label (refused
in one line when missing: test_stage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.services.bench import valgrind

DUMP = """# callgrind format
creator: callgrind-3.19.0
pid: 4242
desc: Timerange: Basic block 100 - 900
desc: Trigger: Client Request: request-256x4
events: Ir
fn=(1) main
3 81393725
totals: 81393725
"""
AT_EXIT = DUMP.replace("Client Request: request-256x4", "Program termination")


def test_every_labelled_dump_of_a_folder_is_read_by_process_and_a_label_once(
    tmp_path: Path,
) -> None:
    (tmp_path / "callgrind.out.4242").write_text(AT_EXIT)  # not a part
    (tmp_path / "callgrind.out.4242.1").write_text(DUMP)
    (tmp_path / "callgrind.out.4242.2").write_text(DUMP.replace("request-", "engine-"))
    (tmp_path / "callgrind.out.4243.1").write_text(DUMP.replace("pid: 4242", "pid: 4243"))
    assert valgrind.read_parts(tmp_path) == {
        4242: {"request-256x4": 81393725, "engine-256x4": 81393725},
        4243: {"request-256x4": 81393725},
    }
    (tmp_path / "callgrind.out.4242.3").write_text(DUMP)
    with pytest.raises(ToolkitError, match="process 4242 are labelled 'request-256x4'"):
        valgrind.read_parts(tmp_path)
    with pytest.raises(ToolkitError, match="no totals line"):
        valgrind.parse_dump(DUMP.replace("totals: 81393725\n", ""))


def test_the_child_runs_under_callgrind_without_address_randomisation_where_allowed(
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
    assert valgrind.command("/bin/vg", tmp_path, ["python", "-m", "x"], prefix) == [
        *prefix,
        "/bin/vg",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--collect-atstart=no",
        f"--callgrind-out-file={tmp_path / 'callgrind.out'}.%p",
        "python",
        "-m",
        "x",
    ]
