"""Callgrind's client requests from Python, counted under valgrind (harmless on a real CPU:
the counted child's in-process tests in test_counted run them there)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dynpatch.replay import callgrind
from dynpatch.services.bench import valgrind
from dynpatch.workspace import TOOLKIT as ROOT

pytestmark = pytest.mark.skipif(not callgrind.supported(), reason="amd64 Linux only")

LOOPS = """
from dynpatch.replay import callgrind

def loop(n):
    return sum(i % 7 for i in range(n))  # the same work per step at any n

print(callgrind.request(callgrind.RUNNING_ON_VALGRIND))
loop(30000)  # warm; blocks of ~18M instructions, so a one-off of a few thousand is noise
for label, n in (("loop-a", 30000), ("loop-b", 30000), ("loop-double", 60000)):
    with callgrind.counting(label):
        loop(n)
"""


def test_a_label_must_come_back_unchanged_from_the_dump() -> None:
    with callgrind.counting("windows-16384x4-256-512"):  # a no-op on a real CPU
        pass
    for bad in ("", "two words", "new\nline", "naïve"):
        with pytest.raises(ValueError, match="unusable dump label"), callgrind.counting(bad):
            pass


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_under_callgrind_only_the_counted_blocks_are_counted_and_they_repeat(
    tmp_path: Path,
) -> None:
    argv = valgrind.command(valgrind.find(), tmp_path, [sys.executable, "-c", LOOPS])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"  # it knew it ran under valgrind
    (parts,) = valgrind.read_parts(tmp_path).values()  # one process
    assert set(parts) == {"loop-a", "loop-b", "loop-double"}
    assert abs(parts["loop-b"] - parts["loop-a"]) <= 0.001 * parts["loop-a"]
    assert 1.9 < parts["loop-double"] / parts["loop-a"] < 2.1
    # Nothing else was counted: what callgrind collected in all is the three blocks.
    assert f"Collected : {sum(parts.values())}\n" in done.stderr
