"""Stage bench: what the change saves in dynamo's real TRT-LLM handler, baseline vs patched.

``python -m dynpatch bench [--mutant] [--record]``. Each tree's replay child runs under
valgrind's callgrind with counting off; it is switched on around the replayed requests
only (:mod:`dynpatch.replay.counted`), so start-up and imports are never counted. Per
tree: instructions per request at 256 x 4 and 4096 x 1, the engine double's share, and
instructions per chunk in windows of one 16384-token stream. The gates fail the run when
the patch's saving or its flat per-chunk cost is missing; ``--mutant`` proves they
would, on the patched tree with the history copy planted back; ``--record`` writes the
committed reference ``docs/bench/``. Then a time-based A/B of the reference case,
interleaved, is printed and saved as informative, never as a verdict.

Modules: :mod:`~.stage` (the run), :mod:`~.options`, :mod:`~.plan` (what is counted; the
children; the allocation profile), :mod:`~.valgrind` (the tool), :mod:`~.counts` (the
counted parts, slopes), :mod:`~.gates`, :mod:`~.report` (tables, Markdown, plot),
:mod:`~.ab` (the time-based A/B and its interval), :mod:`~.host` (the machine),
:mod:`~.recorded` (the committed reference).
"""

from __future__ import annotations

from dynpatch.bench.options import BenchOptions
from dynpatch.bench.recorded import reference
from dynpatch.bench.stage import run

__all__ = ["BenchOptions", "reference", "run"]
