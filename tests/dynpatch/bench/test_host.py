"""The machine a bench run ran on: its CPU's name, from /proc/cpuinfo or the platform."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from dynpatch.bench import host


def test_the_cpu_model_is_cpuinfo_s_model_name_else_the_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "processor\t: 0\nmodel name\t: Some CPU @ 2.0GHz\n"
    monkeypatch.setattr(host, "Path", lambda _path: SimpleNamespace(read_text=lambda: text))
    assert host.cpu_model() == "Some CPU @ 2.0GHz"
    monkeypatch.setattr(host, "Path", lambda _path: SimpleNamespace(read_text=unreadable))
    monkeypatch.setattr(host.platform, "processor", lambda: "")
    assert host.cpu_model() == host.platform.machine()


def unreadable() -> str:
    raise OSError("no /proc here")
