"""How much a bench run measures: the full and the quick form, overrides, bad counts."""

from __future__ import annotations

import pytest

from dynpatch.bench import Options
from dynpatch.bench.records import Case
from dynpatch.bench.settings import CHOICES, REFERENCE, SIZES, Settings, sweep_cases
from dynpatch.errors import ToolkitError


def test_the_full_and_the_quick_form() -> None:
    assert Settings.of(Options()) == Settings(False, 10, 30, 5, 3, 65536)
    assert Settings.of(Options(quick=True)) == Settings(True, 3, 8, 2, 1, 4096)


def test_options_override_the_form_and_no_warm_up_is_allowed() -> None:
    got = Settings.of(Options(quick=True, pairs=2, ops=4, warmup=0, rounds=5))
    assert got == Settings(True, 2, 4, 0, 5, 4096)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (Options(pairs=0), "--pairs must be at least 1, not 0"),
        (Options(ops=-1), "--ops must be at least 1, not -1"),
        (Options(rounds=0), "--rounds must be at least 1, not 0"),
        (Options(warmup=-2), "--warmup must be 0 or more, not -2"),
    ],
)
def test_a_bad_count_is_one_error(options: Options, message: str) -> None:
    with pytest.raises(ToolkitError, match=message):
        Settings.of(options)


def test_the_note_says_what_ran_and_marks_a_quick_run() -> None:
    full = Settings.of(Options()).note()
    assert full == (
        "settings: 10 process pairs x 30 interleaved op pairs (+5 warm-up ops), 3 sweep round(s)"
    )
    quick = Settings.of(Options(quick=True)).note()
    assert quick.endswith("; QUICK run: indicative only, the targets are judged on the full run")


def test_the_cases() -> None:
    assert Case(256, 4, 1) == REFERENCE
    cases = sweep_cases()
    assert len(cases) == len(SIZES) * len(CHOICES)
    assert cases[:3] == [Case(256, 1), Case(256, 4), Case(1024, 1)]
