"""The bench stage's surface: what the command line reaches, and the rerun command."""

from __future__ import annotations

from dynpatch import bench
from dynpatch.bench import stage


def test_the_package_exports_the_stage() -> None:
    assert bench.run is stage.run and bench.Options is stage.Options


def test_the_rerun_command_names_only_what_was_given() -> None:
    assert stage._command(bench.Options()) == "nox -s bench"
    got = stage._command(bench.Options(quick=True, pairs=4, warmup=0, strict=True))
    assert got == "nox -s bench -- --quick --pairs 4 --warmup 0 --strict"
