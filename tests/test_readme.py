"""README.md and docs/*.md: the figures they give for the committed reference counts are the
recorded ones, and every relative link points at a file (and heading) that exists."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COUNT = re.compile(r"\b\d{1,3}(?:,\d{3})+\b")  # an instruction count as the docs write it
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _numbers(value: Any) -> list[float]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [value] if isinstance(value, int | float) and not isinstance(value, bool) else []


def _anchors(page: Path) -> set[str]:
    """GitHub's ids for the headings of ``page``."""
    headings = re.findall(r"^#+ (.+)$", FENCE.sub("", page.read_text()), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_counts_the_docs_give_for_the_reference_are_in_docs_bench_instructions_json() -> None:
    reference = json.loads((ROOT / "docs" / "bench" / "instructions.json").read_text())
    recorded = {f"{round(n):,}" for n in _numbers(reference)}
    text = "".join(page.read_text() for page in PAGES)
    clauses = re.split(r"[.;:,]\s", text)
    quoted = {n for c in clauses if "reference" in c for n in COUNT.findall(c)}
    assert quoted, "the docs quote no count of the committed reference"
    assert quoted <= recorded, f"not in the reference: {sorted(quoted - recorded)}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in LINK.findall(FENCE.sub("", page.read_text())):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in _anchors(file)):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: broken links {broken}"
