"""Instruction counts of dynamo's real TRT-LLM handler, baseline vs patched: benchmark
evidence a busy machine cannot bend.

``python -m dynpatch bench --instructions [--mutant] [--record]``. Each tree's replay
child runs under valgrind's callgrind with counting off; it is switched on around the
replayed requests only (:mod:`dynpatch.replay.counted`), so start-up and imports are
never counted. Per tree: instructions per request at 256 x 4 and 4096 x 1, the engine
double's share, and instructions per chunk in windows of one 16384-token stream. The
gates (:mod:`~.gates`) fail the run when the patch's saving or its flat per-chunk cost
is missing; ``--mutant`` proves they would, on the patched tree with the history copy
planted back; ``--record`` writes the committed reference ``docs/bench/``.

Modules: :mod:`~.stage` (the run), :mod:`~.plan` (what is counted; the children),
:mod:`~.valgrind` (the tool), :mod:`~.records` (the counted parts), :mod:`~.gates`,
:mod:`~.report` (tables, Markdown, plot), :mod:`~.mutant`, :mod:`~.recorded` (the committed reference).
"""

from __future__ import annotations

from dynpatch.bench.instructions.recorded import reference

__all__ = ["reference"]
