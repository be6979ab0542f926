"""Stage bench: what the change saves in dynamo's real TRT-LLM handler, baseline vs patched,
in instructions counted under callgrind (gated) and in one timed A/B (informative)."""

from __future__ import annotations

from dynpatch.bench.stage import BenchOptions, run

__all__ = ["BenchOptions", "run"]
