"""README and docs/bench.md: the figures they give for the committed reference counts are the
recorded ones."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COUNT = re.compile(r"\b\d{1,3}(?:,\d{3})+\b")  # an instruction count as the README writes it


def _numbers(value: Any) -> list[float]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [value] if isinstance(value, int | float) and not isinstance(value, bool) else []


def test_counts_the_docs_give_for_the_reference_are_in_docs_bench_instructions_json() -> None:
    reference = json.loads((ROOT / "docs" / "bench" / "instructions.json").read_text())
    recorded = {f"{round(n):,}" for n in _numbers(reference)}
    text = (ROOT / "README.md").read_text() + (ROOT / "docs" / "bench.md").read_text()
    clauses = re.split(r"[.;:,]\s", text)
    quoted = {n for c in clauses if "reference" in c for n in COUNT.findall(c)}
    assert quoted, "the docs quote no count of the committed reference"
    assert quoted <= recorded, f"not in the reference: {sorted(quoted - recorded)}"
