"""The typed records the checking stages save, one file per (stage, base, series):
``out/evidence/<stage>/<base>-<series>.json``. Bases and designs never overwrite each other:
a record is current for a base and series when one exists under their key. A file that is
not of this schema version, or whose fields do not have their types, reads as not run."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import platform
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import TypeAdapter, ValidationError

from dynpatch.errors import ToolkitError
from dynpatch.io import files
from dynpatch.series import series_digest

SCHEMA = 2  # bump when a field changes: older records then read as not run


@dataclass(frozen=True)
class Spread:
    """One figure measured ``len(runs)`` times."""

    runs: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def apart_pct(self) -> float:
        """How far apart the runs are, in % of the smallest."""
        return (max(self.runs) - min(self.runs)) / min(self.runs) * 100 if self.runs else 0.0


@dataclass(frozen=True)
class Hook:
    name: str
    version: str  # the pin, or the rule a check follows
    files: int
    findings: tuple[str, ...]  # "path:line: message"
    scope: str  # whole files, changed lines, commit messages


@dataclass(frozen=True)
class PreCommit:
    STAGE: ClassVar[str] = "pre-commit"
    hooks: tuple[Hook, ...]
    config: str  # whose settings ran, and which version
    base_config: bool  # the base has a .pre-commit-config.yaml of its own
    paths: tuple[str, ...]  # the files checked

    @property
    def findings(self) -> tuple[str, ...]:
        return tuple(f for h in self.hooks for f in h.findings)


@dataclass(frozen=True)
class Tier:
    name: str  # cpu, standin, gpu
    marker: str
    paths: tuple[str, ...]  # handed to pytest
    before: Mapping[str, int]  # outcome -> tests, on the base
    after: Mapping[str, int]
    new: tuple[str, ...]  # node ids of the new tests' cases
    extended: tuple[str, ...]  # of existing tests the series changes
    failed_before: tuple[str, ...]  # of those, failing on the base on their own checks
    passed_after: tuple[str, ...]
    why_before: str  # the first such failure, as pytest said it
    ignored_caught: int | None  # cases failing when the keyword is ignored (None: no keyword)
    changed: tuple[str, ...]  # other tests whose outcome changed
    failed_both: tuple[str, ...]
    double: bool  # tensorrt_llm was a test double
    problems: tuple[str, ...]


@dataclass(frozen=True)
class TestUpstream:
    STAGE: ClassVar[str] = "test-upstream"
    __test__: ClassVar[bool] = False  # not a pytest class
    tiers: tuple[Tier, ...]
    not_run: Mapping[str, str]  # tier -> why


@dataclass(frozen=True)
class Verify:
    STAGE: ClassVar[str] = "verify"
    streams: int
    drawn: int  # of them drawn at random
    chunks: int
    differ: tuple[str, ...]  # "scenario: chunk N (kind), field F" (a record's index if no chunk)
    unmet: tuple[str, ...]  # scenarios that did not show what they are named for
    alternative_differ: int | None  # the other design's streams apart (None: not replayed)
    seed: int


@dataclass(frozen=True)
class Script:
    """The reviewer's script, as the bench ran it on the patched tree."""

    sha256: str
    machine: str  # e.g. "AMD EPYC x2, Python 3.11.7"
    tree: str  # the design it found: before, delta or one-liner
    per_chunk_us: Mapping[str, Mapping[str, Spread]]  # history -> column -> µs
    request_ms: Mapping[str, Mapping[str, Spread]]  # tokens -> column -> ms

    def table(self, figures: str = "per_chunk_us") -> list[str]:
        """A Markdown table of ``per_chunk_us`` or ``request_ms``: each column's median, with
        the lowest and highest run."""
        rows = getattr(self, figures)
        columns = list(dict.fromkeys(c for row in rows.values() for c in row))
        unit, first = ("µs", "history") if figures == "per_chunk_us" else ("ms", "tokens")
        head = [first, *(f"{COLUMNS.get(c, c)} ({unit})" for c in columns)]
        lines = [f"| {' | '.join(head)} |", "|" + "---:|" * len(head)]
        for key, row in rows.items():
            cells = [_spread(row[c]) if c in row else "" for c in columns]
            lines.append(f"| {int(key):,} | {' | '.join(cells)} |")
        return lines


COLUMNS = {"before": "before", "delta": "with the delta", "one_liner": "one-liner"}


def _spread(s: Spread) -> str:
    return f"{s.median:.2f} ({min(s.runs):.2f} to {max(s.runs):.2f})"


@dataclass(frozen=True)
class Bench:
    STAGE: ClassVar[str] = "bench"
    # case (256x4, 4096x1) -> tree -> instructions per request, each run of it
    requests: Mapping[str, Mapping[str, Spread]]
    late_vs_early_pct: Mapping[str, float]  # tree -> one chunk late vs early, long stream
    missed: tuple[str, ...]  # the gates this change missed
    mutant_met: tuple[str, ...] | None  # the gates the planted copy met (None: not run)
    script: Script | None

    @property
    def apart_pct(self) -> float:
        """How far apart the two counts of the same request are, at most, in %."""
        return max(
            (s.apart_pct for row in self.requests.values() for s in row.values()), default=0.0
        )

    def ratio(self, case: str, tree: str) -> float | None:
        runs = self.requests.get(case, {})
        if tree not in runs or "baseline" not in runs:
            return None
        return runs[tree].median / runs["baseline"].median


Facts = PreCommit | TestUpstream | Verify | Bench
F = TypeVar("F", PreCommit, TestUpstream, Verify, Bench)
KINDS: tuple[type[Facts], ...] = (TestUpstream, Verify, Bench, PreCommit)


@dataclass(frozen=True)
class Record(Generic[F]):
    """What a stage saved for one base and series."""

    facts: F
    base: str
    series_sha256: str
    design: str
    problems: tuple[str, ...]  # why it failed; empty: it passed
    command: str  # the toolkit's command that made it (the person's, not the PR's)
    summary: str = ""  # what the stage printed
    details: Mapping[str, Any] = field(default_factory=dict)  # the stage's raw data
    created: str = ""
    host: str = ""
    schema: int = SCHEMA

    @property
    def stage(self) -> str:
        return self.facts.STAGE

    @property
    def passed(self) -> bool:
        return not self.problems


def path(out: Path, stage: str, base: str, digest: str) -> Path:
    return out / stage / f"{base[:12]}-{digest[:12]}.json"


def save(record: Record[Any], patches_dir: Path, out: Path) -> Path:
    """Write the record under its key; refuse, saving nothing, if ``patches_dir``'s series
    changed while the stage ran."""
    now, made = series_digest(patches_dir), record.series_sha256
    if now != made:
        raise ToolkitError(
            f"{patches_dir} changed while {record.stage} ran (its trees hold series sha256 "
            f"{made[:12]}, {patches_dir.name}/ now {now[:12]}): nothing saved; rerun it"
        )
    when = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    host = f"Python {platform.python_version()} ({platform.machine()})"
    data = dataclasses.asdict(dataclasses.replace(record, created=when, host=host))
    target = path(out, record.stage, record.base, made)
    target.parent.mkdir(parents=True, exist_ok=True)  # an OSError is the command line's one line
    files.write_atomic(target, json.dumps({"stage": record.stage, **data}, indent=1) + "\n")
    return target


def replace_files(folder: Path, new: Mapping[str, bytes], locks: Path) -> None:
    """``new`` in ``folder``, all or none, the folder's other files kept."""
    others = {p.name for p in folder.iterdir()} - set(new) if folder.is_dir() else set()
    lock = locks / f"{folder.name}.lock"
    with files.lock(lock, f"{folder}"), files.staged_dir(folder, keep=frozenset(others)) as tmp:
        for name, data in new.items():
            files.write_atomic(tmp / name, data)


def load(kind: type[F], out: Path, base: str, digest: str) -> Record[F] | str:
    """The record of ``kind`` saved for ``base`` and ``digest``, or why there is none."""
    where = path(out, kind.STAGE, base, digest)
    if not where.is_file():
        return "not run for this base and series"
    record = _read(kind, where)
    if isinstance(record, Record) and (record.base, record.series_sha256) != (base, digest):
        return "saved under another base and series' key"
    return record


def of_series(kind: type[F], out: Path, digest: str) -> list[Record[F]]:
    """Every valid record of ``kind`` saved for the series ``digest``, on any base."""
    found = [_read(kind, p) for p in sorted((out / kind.STAGE).glob(f"*-{digest[:12]}.json"))]
    return [r for r in found if isinstance(r, Record) and r.series_sha256 == digest]


def _read(kind: type[F], where: Path) -> Record[F] | str:
    """The record at ``where``, its every field checked against its type (strictly: no
    "264" for 264), or why it is not one."""
    try:
        text = where.read_text()
        schema = json.loads(text).get("schema")
    except (OSError, ValueError, AttributeError) as exc:
        return f"unreadable ({exc})"
    if schema != SCHEMA:
        return f"made by another version of the tool (schema {schema}, not {SCHEMA})"
    try:
        return TypeAdapter(Record[kind]).validate_json(text, strict=True)  # type: ignore[valid-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        return f"not a valid record: {'.'.join(map(str, first['loc']))}: {first['msg']}"
