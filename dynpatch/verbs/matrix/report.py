"""The matrix as Markdown and JSON: a row per release, a note for each cell that is not a
plain success."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import Any

from codemods.series import SERIES
from dynpatch import console
from dynpatch.io import files
from dynpatch.pin import version_key
from dynpatch.releases import PINNED, TOFU
from dynpatch.services import checks as stages
from dynpatch.services.checks import Check
from dynpatch.verbs.matrix.release import FIXED_UPSTREAM, Row

# ``file::qualname`` of every step, in series order (the table's target columns), and their
# short headers.
STEPS = [f"{s.target.path}::{s.target.qualname}" for s in SERIES]
TARGET_HEADERS = ("helper", "_extract_logprobs", "loop call", "helper tests", "handler test")
_SHORT = {
    "already-applied": "already",
    "not-applicable": "n/a",
    "drifted": "DRIFTED",
    FIXED_UPSTREAM: "fixed upstream",
}


def headers(pinned: str) -> list[str]:
    tail = ["own series: git am", f"patches/ ({pinned}) as-is", "test-upstream CPU"]
    return ["release", *TARGET_HEADERS, *tail, "verify quick"]


def cells(row: Row) -> list[str]:
    marks = [m for m, on in (("pin", row.pinned), ("newest", row.newest)) if on]
    if row.trust == TOFU:
        marks.append("TOFU sha256")
    elif row.trust != PINNED:  # a git ref or a clone: its source says what it is
        marks.append(row.trust)
    release = row.version + (f" ({', '.join(marks)})" if marks else "")
    targets = [_SHORT.get(o["status"], o["status"]) for o in row.outcomes]
    targets += ["-"] * (len(TARGET_HEADERS) - len(targets))
    ams = [_am(row.own_am, must=True), _am(row.committed_am, must=row.pinned)]
    return [release, *targets, *ams, _check(row.test_upstream), _check(row.verify)]


def _am(check: Check, must: bool) -> str:
    """The git am columns answer "does it apply?": yes, or no (FAIL where it must)."""
    if check.status == stages.PASS:
        return "yes"
    if check.status == stages.FAIL:
        return "FAIL" if must else "no"
    return _check(check)


def _check(check: Check) -> str:
    word = check.status.upper() if check.bad else check.status
    return word + (" (cached)" if check.cached else "")


def notes(rows: list[Row]) -> list[str]:
    """Why each cell that is not a plain success is what it is, release by release."""
    lines = []
    for row in rows:
        v = row.version
        if row.note:
            lines.append(f"{v}: {row.note}")
        if row.series in ("not-applicable", "already-applied", FIXED_UPSTREAM):
            lines.append(f"{v}: {row.series.replace('-', ' ')}: {row.series_detail}")
        elif row.series in ("drifted", "error"):
            why = (row.problems if row.series == "drifted" else []) or [row.series_detail]
            lines += [f"{v}: {row.series.upper()}: {p}" for p in why]
        ams = [("own series", row.own_am), ("committed series", row.committed_am)]
        for name, c in [*ams, ("test-upstream", row.test_upstream), ("verify", row.verify)]:
            if c.status == stages.NA or (c.status == stages.PASS and name.endswith("series")):
                continue
            if name == "committed series" and not row.pinned:
                lines.append(f"{v}: committed series does not apply as-is: {c.detail}")
            elif c.status != stages.NOT_RUN or row.series == "applied":
                cached = " (cached result)" if c.cached else ""
                lines.append(f"{v}: {name}: {c.status}{cached}: {c.detail}")
    return lines


# Rows whose fix is upstream already: the series can be retired from the first one on.
_UPSTREAM = ((FIXED_UPSTREAM, "fixed upstream"), ("already-applied", "merged upstream"))


def tally(rows: list[Row]) -> str:
    """``N releases: a applied, b not applicable, c drifted`` (and the fixed or merged ones)."""
    count = Counter(r.series for r in rows)
    text = (
        f"{len(rows)} releases: {count['applied']} applied, {count['not-applicable']} not "
        f"applicable, {count['drifted']} drifted"
    )
    return text + "".join(f", {count[s]} {what}" for s, what in _UPSTREAM if count[s])


def verdict(rows: list[Row], skip: list[str] | tuple[str, ...] = ()) -> str:
    bad = [r.version for r in rows if not r.ok]
    text = f"problems in {', '.join(bad)}" if bad else "every check that ran passed"
    return text + (f" (skipped: {', '.join(skip)})" if skip else "")


def retire(rows: list[Row]) -> list[str]:
    """The lines saying from which release on the fix is upstream (none when it is not)."""
    lines = []
    for series, what in _UPSTREAM:
        if found := sorted((r.version for r in rows if r.series == series), key=version_key):
            lines.append(f"{what} from {found[0]}: the series can be retired from {found[0]} on")
    return lines


def markdown(rows: list[Row], meta: dict[str, Any]) -> str:
    pinned = meta["pinned"]
    head = headers(pinned)
    # Path(...).name of "path/file.py::qualname" is "file.py::qualname" (a qualname has no /)
    named = "; ".join(f"{h} = `{Path(t).name}`" for h, t in zip(TARGET_HEADERS, STEPS, strict=True))
    out = [
        f"ai-dynamo version matrix, {meta['created']} (toolkit {meta['toolkit'][:12]}, "
        f"patches/ {meta['committed_series_sha256'][:12]} for {pinned})",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(cells(row)) + " |" for row in rows),
        "",
        f"Targets, in series order: {named}.",
        "",
        "- targets: applied, already (merged upstream), n/a, DRIFTED or fixed upstream (the "
        "release's own fix, judged by running its code), each explained below.",
        "- own series: this release's series, regenerated on its base, applies with `git am` "
        f"to a fresh copy of it and reverses; patches/ ({pinned}) as-is: the committed one "
        "does (no on another release is a finding, FAIL on the pinned one an error).",
        "- test-upstream CPU (dynamo's CPU tests, baseline vs patched) and verify quick (named "
        "scenarios plus a small hypothesis budget) use the release's own series and runtime.",
    ]
    if found := notes(rows):
        out += ["", "Notes:", "", *(f"- {n}" for n in found)]
    out += ["", f"    {meta['summary']}"]
    return "\n".join(out) + "\n"


def show(rows: list[Row], meta: dict[str, Any], out: Path) -> list[str]:
    """Write ``out/matrix.md`` and ``out/matrix.json`` (atomically); the lines to print."""
    md, js = out / "matrix.md", out / "matrix.json"
    text = markdown(rows, meta)
    files.write_atomic(md, text)
    data = {**meta, "columns": headers(meta["pinned"]), "targets": STEPS}
    data |= {"rows": [dataclasses.asdict(r) for r in rows], "notes": notes(rows)}
    files.write_atomic(js, json.dumps(data, indent=2) + "\n")
    return [text.rstrip("\n"), *retire(rows), f"wrote {console.rel(md)} and {console.rel(js)}"]
