"""README.md and docs/*.md: the figures they give for the committed reference counts are the
recorded ones, every relative link points at a file (and heading) that exists, and every
toolkit path they (and the workflows) name exists."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from dynpatch.evidence import Script
from dynpatch.series import series_digest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
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
    # and its ratios (0.858), as the docs round them
    ratios = {f"{n:.3f}" for n in _numbers(reference) if 0 < n < 2}
    said = {r for c in clauses if "reference" in c for r in re.findall(r"\b[01]\.\d{3}\b", c)}
    assert said and said <= ratios, f"not in the reference: {sorted(said - ratios)}"


def test_every_toolkit_path_the_docs_and_workflows_name_exists() -> None:
    """A module or folder of the toolkit named in the docs (`dynpatch/x.py`, `codemods/`,
    `tools/...`; not a branch such as `dynpatch/work`), or a file of it or its tests named in
    a workflow's comments and commands, is where they say: files move, prose stays."""
    quoted = r"`((?:dynpatch|codemods|tools)/[\w/.-]*(?:\.\w+|/))`"
    named = {(page.name, path) for page in PAGES for path in re.findall(quoted, page.read_text())}
    bare = r"(?<![\w/.-])((?:dynpatch|codemods|tools|tests)/[\w/.-]*\.\w+)"
    named |= {
        (flow.name, path) for flow in WORKFLOWS for path in re.findall(bare, flow.read_text())
    }
    missing = [f"{page}: {path}" for page, path in sorted(named) if not (ROOT / path).exists()]
    assert not missing, missing


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


def test_the_wheel_version_the_docs_give_is_of_the_series_in_patches() -> None:
    """``+dynpatch.<8 hex>`` names the series (its sha256) the wheel was built with."""
    digest = series_digest(ROOT / "patches")[:8]
    quoted = {
        m for page in PAGES for m in re.findall(r"\+dynpatch\.([0-9a-f]{8})", page.read_text())
    }
    assert quoted and quoted == {digest}, f"the series is {digest}; the docs say {sorted(quoted)}"


# A figure in a console block: a count, a ratio, a percentage; not a version (1.6.1), a
# duration (3.2 s), pytest's progress ([100%]), or a part of a name or hash.
FIGURE = re.compile(r"(?<![\w.,:/\[-])[+-]?\d[\d,]*(?:\.\d+)?%?(?![\w.,:]\d|\w| ?s\b)")
RECORDED = re.compile(
    r"\]\((records/[\w.-]+\.json)\)[^\n]*\n(?:[^\n]*\n){0,3}?```console\n(.*?)^```", re.S | re.M
)


def _recorded_blocks() -> list[tuple[Path, Path, str]]:
    return [
        (page, page.parent / record, block)
        for page in PAGES
        for record, block in RECORDED.findall(page.read_text())
    ]


def test_the_stage_pages_show_a_recorded_run() -> None:
    shown = {page.name for page, _, _ in _recorded_blocks()}
    assert {"apply.md", "test-upstream.md", "verify.md", "bench.md"} <= shown, shown


@pytest.mark.parametrize(
    ("page", "record", "block"), _recorded_blocks(), ids=lambda v: getattr(v, "name", "")
)
def test_every_figure_of_a_recorded_run_is_in_its_record(
    page: Path, record: Path, block: str
) -> None:
    """The figures a page's console block shows are the ones its run saved (the record is a
    copy of out/evidence/<stage>/<base>-<series>.json), and that run was of the series in
    patches/."""
    saved = json.loads(record.read_text())
    assert saved["series_sha256"] == series_digest(ROOT / "patches"), f"{record.name} is stale"
    text = json.dumps(saved, ensure_ascii=False) + saved.get("summary", "")
    if script := saved["facts"].get("script"):  # its figures as the records render them
        typed = TypeAdapter(Script).validate_python(script)
        text += "\n".join([*typed.table(), *typed.table("request_ms")])
    missing = [
        f
        for f in FIGURE.findall(block)
        if not re.search(rf"(?<![\d.]){re.escape(f)}(?![\d])", text)
    ]
    assert not missing, f"{page.name}: not in {record.name}: {missing}"
