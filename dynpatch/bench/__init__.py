"""Stage bench: what the change saves in dynamo's real TRT-LLM handler, baseline vs patched.

``python -m dynpatch bench --instructions [--mutant] [--record]`` counts instructions
under valgrind (:mod:`dynpatch.bench.instructions`): deterministic, so CI gates on it.
The time-based form below is informative.

``python -m dynpatch bench [--quick] [--strict]``. Everything runs in pairs of persistent
worker processes, one per tree (``dynpatch/replay/child.py --serve``); their ops
alternate (A B, B A, ...), so both trees are measured in the same stretch of time while
each stays in its own process. An op is one whole request replayed through
``AggregatedHandler.generate``, timed as the handler thread's CPU time.

* Reference A/B: 256 tokens x 4 interleaved choices, one token per result, logprobs on.
  ``--pairs`` process pairs, each warmed up, then ``--ops`` interleaved op pairs; per
  process pair the median of each tree; the paired median change over process pairs has
  a percentile-bootstrap 95 % interval.
* Scaling sweep: N in 256..16384 tokens x 1 and 4 choices on both trees, ``--rounds``
  process pairs; time per request and per chunk (per-chunk stamps, steady-state chunks),
  per history length.
* Allocation profile: tracemalloc peak per sampled chunk against the history length.

Target 3 (per-chunk time flat in history) is judged inside one stream, late history bin
against early, so a request's fixed cost cannot pass for a per-chunk one.

Writes ``out/bench/bench.json`` (raw samples, environment), ``bench.md`` (the tables and
target lines as printed) and ``per_chunk.png``; ``--quick`` writes under
``out/bench/quick/``. Prints whether each target is met; ``--strict`` exits 1 if not.
The evidence record keeps the latest run of each kind (instructions, full, quick).

Modules: :mod:`~dynpatch.bench.stage` (options and the run), :mod:`~.settings` (how much
is measured), :mod:`~.measure` (the worker pairs), :mod:`~.records` (what is measured),
:mod:`~.targets` (the analysis and the target verdicts), :mod:`~.report` (tables,
Markdown, plot), :mod:`~.host` (the machine).
"""

from __future__ import annotations

from dynpatch.bench.options import Options
from dynpatch.bench.stage import run

__all__ = ["Options", "run"]
