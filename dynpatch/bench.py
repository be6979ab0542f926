"""Stage bench: what the change saves in dynamo's real TRT-LLM handler, baseline vs patched.

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

Writes ``out/bench/bench.json`` (raw samples, environment), ``bench.md`` (the tables and
target lines as printed) and ``per_chunk.png``; ``--quick`` writes under
``out/bench/quick/``. Prints whether each target is met; ``--strict`` exits 1 if not.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from dynpatch import console, evidence
from dynpatch.console import err, out
from dynpatch.errors import ToolkitError
from dynpatch.fetch import FetchOptions, pinned
from dynpatch.io import files
from dynpatch.patch.apply import PATCHES
from dynpatch.replay import runner
from dynpatch.replay.progress import Steps
from dynpatch.replay.stats import PairedChange, paired_change, slope

OUT = evidence.OUT / "bench"
REFERENCE = {"tokens": 256, "choices": 4, "k": 1}
SIZES = (256, 1024, 4096, 16384)
CHOICES = (1, 4)
ALLOC_SAMPLES = 96  # sampled chunks per sweep case for tracemalloc
BOOTSTRAP_SEED = 20261130

# Targets (issue 4). Slope threshold: copying history costs >= 8 bytes (a pointer) per
# history token, so anything under 1 B/token cannot be a copy of the history.
TARGET_CI_UPPER_PCT = -5.0
TARGET_4096_SAVING_PCT = 40.0
TARGET_FLAT_PCT = 10.0
TARGET_ALLOC_SLOPE = 1.0


@dataclass(frozen=True)
class Settings:
    quick: bool
    pairs: int  # reference: process pairs (a baseline and a patched worker each)
    ops: int  # reference: interleaved op pairs per process pair
    warmup: int
    rounds: int
    min_chunks: int  # per sweep case and round: short streams are replayed until this many

    @staticmethod
    def of(args: Options) -> Settings:
        quick = bool(args.quick)
        return Settings(
            quick=quick,
            pairs=args.pairs or (3 if quick else 10),
            ops=args.ops or (8 if quick else 30),
            warmup=args.warmup if args.warmup is not None else (2 if quick else 5),
            rounds=args.rounds or (1 if quick else 3),
            min_chunks=4096 if quick else 65536,
        )


@dataclass(frozen=True)
class Target:
    label: str
    met: bool
    detail: str

    def line(self) -> str:
        return f"{self.label}: {self.detail} -> {'met' if self.met else 'NOT MET'}"


@dataclass(frozen=True, kw_only=True)
class Options(FetchOptions):
    quick: bool = False  # CI form: same code path, fewer samples
    pairs: int | None = None  # None: the form's default
    ops: int | None = None
    warmup: int | None = None
    rounds: int | None = None
    strict: bool = False  # exit 1 when a target is not met
    python: str = sys.executable  # interpreter of the replay children
    out: Path | None = None  # None: out/bench[/quick]
    patches: Path = PATCHES
    evidence: Path = evidence.EVIDENCE


def run(args: Options) -> int:
    for name in ("pairs", "ops", "rounds"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ToolkitError(f"--{name} must be at least 1, not {value}")
    if args.warmup is not None and args.warmup < 0:
        raise ToolkitError(f"--warmup must be 0 or more, not {args.warmup}")
    settings = Settings.of(args)
    out_dir: Path = args.out or (OUT / "quick" if settings.quick else OUT)
    start = time.perf_counter()
    _pin, checkout = pinned(args)
    from dynpatch.patch.trees import prepare_trees

    with err.status("preparing the baseline and patched trees ..."):
        trees = prepare_trees(checkout, args.patches)
    tree_of = {
        "baseline": runner.Tree("baseline", trees.src(trees.baseline)),
        "patched": runner.Tree("patched", trees.src(trees.patched)),
    }
    load_before, cpu_before = _loadavg(), _cpu_times()
    logs = out_dir / "logs"
    with Steps(err, settings.pairs + settings.rounds) as steps:

        def workers(what: str) -> tuple[runner.Worker, runner.Worker]:
            """A baseline and a patched worker, importing dynamo at the same time."""
            steps.start(what)
            name = what.replace(" ", "-")
            pair = tuple(
                runner.Worker(tree_of[label], logs / f"{name}-{label}.log", python=args.python)
                for label in ("baseline", "patched")
            )
            for worker in pair:
                worker.ready()
            return pair  # type: ignore[return-value]

        pairs = run_reference(settings, workers, steps.done)
        rounds = run_sweep(settings, workers, steps.done)
    runner.check_trees(pairs[0]["baseline_hello"], pairs[0]["patched_hello"])
    load_after, steal = _loadavg(), _steal_pct(cpu_before, _cpu_times())

    reference = paired_change(
        [p["baseline"]["median_ns"] for p in pairs],
        [p["patched"]["median_ns"] for p in pairs],
        seed=BOOTSTRAP_SEED,
    )
    sweep = sweep_rows(rounds)
    alloc = alloc_summary(rounds)
    targets = evaluate(reference, sweep, alloc)
    environment = _environment(pairs[0]["baseline_hello"], load_before, load_after, steal)
    notes = [
        f"host: {environment['cpu']} x{environment['cpus']}, Python {environment['python']}; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
        + ("" if steal is None else f"; CPU steal {steal:.1f}% during the run"),
        f"settings: {settings.pairs} process pairs x {settings.ops} interleaved op pairs "
        f"(+{settings.warmup} warm-up ops), {settings.rounds} sweep round(s)"
        + (
            "; QUICK run: indicative only, the targets are judged on the full run"
            if settings.quick
            else ""
        ),
    ]

    ref_table, sweep_table = reference_table(reference), sweep_table_of(sweep, alloc)
    ref_line = reference_line(reference)
    target_lines = [t.line() for t in targets]
    met = sum(t.met for t in targets)
    target_lines.append(f"targets met: {met} of {len(targets)}")
    target_lines.append(within_stream_line(rounds))

    out_dir.mkdir(parents=True, exist_ok=True)
    plot = out_dir / "per_chunk.png"
    write_plot(rounds, plot)
    md = markdown(reference, ref_line, sweep, alloc, target_lines, notes, plot)
    data = {
        "settings": asdict(settings),
        "environment": environment,
        "trees": {"base": trees.base, "series_sha256": trees.series_sha256},
        "reference": {
            "case": REFERENCE,
            "summary": asdict(reference),
            "pairs": [{k: v for k, v in p.items() if not k.endswith("_hello")} for p in pairs],
        },
        "sweep": {"rows": sweep, "rounds": rounds},
        "alloc": alloc,
        "targets": [asdict(t) for t in targets],
        "seconds": round(time.perf_counter() - start, 1),
    }
    files.write_atomic(out_dir / "bench.json", json.dumps(data, indent=1) + "\n")
    files.write_atomic(out_dir / "bench.md", md)

    out.print(ref_table)
    out.print(ref_line, markup=False)
    out.print(sweep_table)
    for line in [*target_lines, *notes]:
        out.print(line, markup=False)
    out.print(
        f"wrote {console.rel(out_dir / 'bench.json')}, {console.rel(out_dir / 'bench.md')}, {console.rel(plot)} "
        f"in {time.perf_counter() - start:.0f} s",
        markup=False,
    )
    all_met = met == len(targets)
    saved = evidence.save(
        "bench",
        args.patches,
        command=_command(args),
        verdict="pass" if all_met else "fail",
        summary_md=md,
        details={k: v for k, v in data.items() if k != "sweep"} | {"sweep": sweep},
        out=args.evidence,
    )
    out.print(f"evidence: {console.rel(saved)}", markup=False)
    return 1 if args.strict and not all_met else 0


# --- measuring ------------------------------------------------------------------------

Workers = Any  # (what) -> (baseline worker, patched worker), both ready
Done = Any  # () -> None: one progress step finished
LABELS = ("baseline", "patched")


def _alternating(i: int) -> tuple[str, str]:
    return LABELS if i % 2 == 0 else (LABELS[1], LABELS[0])


def run_reference(settings: Settings, workers: Workers, done: Done) -> list[dict[str, Any]]:
    """Process pairs; in each, ops alternate between the two workers (A B, B A, ...), so
    both trees are measured in the same stretch of time, each in its own process."""
    pairs = []
    for i in range(settings.pairs):
        pair = dict(zip(LABELS, workers(f"reference pair {i + 1}"), strict=True))
        try:
            for label in LABELS:
                if settings.warmup:
                    pair[label].ask({"cmd": "time", "case": REFERENCE, "ops": settings.warmup})
            ops: dict[str, list[int]] = {label: [] for label in LABELS}
            for j in range(settings.ops):
                for label in _alternating(j):
                    reply = pair[label].ask({"cmd": "time", "case": REFERENCE, "ops": 1})
                    ops[label] += reply["ops_ns"]
        finally:
            for worker in pair.values():
                worker.close()
        entry: dict[str, Any] = {f"{label}_hello": pair[label].hello for label in LABELS}
        for label in LABELS:
            entry[label] = {"ops_ns": ops[label], "median_ns": statistics.median(ops[label])}
        pairs.append(entry)
        done()
    return pairs


def sweep_cases() -> list[dict[str, int]]:
    return [{"tokens": n, "choices": c, "k": 1} for n in SIZES for c in CHOICES]


def run_sweep(settings: Settings, workers: Workers, done: Done) -> list[dict[str, Any]]:
    """Each round a new process pair: every case, ops alternating between the trees, with
    per-chunk stamps; short streams repeat until ``min_chunks``. The first round then
    samples allocations (after all its timing)."""
    rounds = []
    for r in range(settings.rounds):
        pair = dict(zip(LABELS, workers(f"sweep round {r + 1}"), strict=True))
        entry: dict[str, Any] = {label: [] for label in LABELS}
        try:
            for label in LABELS:
                if settings.warmup:
                    pair[label].ask({"cmd": "time", "case": REFERENCE, "ops": settings.warmup})
            # Case order alternates by round too, so drift does not favour one size.
            for case in sweep_cases()[:: 1 if r % 2 == 0 else -1]:
                repeats = max(1, -(-settings.min_chunks // (case["tokens"] * case["choices"])))
                replies: dict[str, list[dict[str, Any]]] = {label: [] for label in LABELS}
                for j in range(repeats):
                    for label in _alternating(j + r):
                        cmd = {"cmd": "time", "case": case, "ops": 1, "stamps": True}
                        replies[label].append(pair[label].ask(cmd))
                for label in LABELS:
                    entry[label].append(_merge(case, replies[label]))
            if r == 0:
                for label in LABELS:
                    for case_entry in entry[label]:
                        cmd = {"cmd": "alloc", "case": case_entry["case"], "samples": ALLOC_SAMPLES}
                        case_entry["alloc"] = pair[label].ask(cmd)["alloc"]
        finally:
            for worker in pair.values():
                worker.close()
        rounds.append(entry)
        done()
    return rounds


def _merge(case: dict[str, Any], replies: list[dict[str, Any]]) -> dict[str, Any]:
    """One case's single-op replies as one record: all ops, per-op chunk medians, and per
    history bin the median over ops of the bin medians."""
    bins: dict[int, list[float]] = {}
    for reply in replies:
        for b in reply["bins"]:
            bins.setdefault(b["lo"], []).append(b["median_ns"])
    return {
        "case": case,
        "chunks": replies[0]["chunks"],
        "ops_ns": [v for reply in replies for v in reply["ops_ns"]],
        "per_op_chunk_median_ns": [v for reply in replies for v in reply["per_op_chunk_median_ns"]],
        "chunk_median_ns": statistics.median(
            v for reply in replies for v in reply["per_op_chunk_median_ns"]
        ),
        "bins": [
            {"lo": lo, "hi": 2 * lo, "ops": len(v), "median_ns": statistics.median(v)}
            for lo, v in sorted(bins.items())
        ],
    }


# --- analysis -------------------------------------------------------------------------


def _key(case: dict[str, Any]) -> tuple[int, int]:
    return int(case["tokens"]), int(case["choices"])


def sweep_rows(rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per case and tree: medians over rounds of request CPU time and per-chunk time."""
    rows = []
    for case in sweep_cases():
        row: dict[str, Any] = {"tokens": case["tokens"], "choices": case["choices"]}
        for label in ("baseline", "patched"):
            found = [c for rnd in rounds for c in rnd[label] if _key(c["case"]) == _key(case)]
            row["chunks"] = found[0]["chunks"]
            row[f"{label}_request_ns"] = statistics.median(v for c in found for v in c["ops_ns"])
            row[f"{label}_chunk_ns"] = statistics.median(c["chunk_median_ns"] for c in found)
        rows.append(row)
    return rows


def alloc_summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Median tracemalloc peak per chunk per case, and the slope against history."""
    per_case: list[dict[str, Any]] = []
    slopes: dict[str, dict[str, float]] = {"baseline": {}, "patched": {}}
    first = rounds[0]
    for label in ("baseline", "patched"):
        by_choices: dict[int, list[list[int]]] = {}
        for c in first[label]:
            samples = c.get("alloc") or []
            by_choices.setdefault(int(c["case"]["choices"]), []).extend(samples)
            per_case.append(
                {
                    "tree": label,
                    "tokens": c["case"]["tokens"],
                    "choices": c["case"]["choices"],
                    "samples": len(samples),
                    "median_peak_bytes": statistics.median(s[1] for s in samples)
                    if samples
                    else None,
                }
            )
        for choices, samples in sorted(by_choices.items()):
            if samples:
                slopes[label][str(choices)] = slope(
                    [s[0] for s in samples], [s[1] for s in samples]
                )
    return {"per_case": per_case, "slope_bytes_per_token": slopes}


def _row(sweep: list[dict[str, Any]], tokens: int, choices: int) -> dict[str, Any]:
    return next(r for r in sweep if r["tokens"] == tokens and r["choices"] == choices)


def _pct(new: float, old: float) -> float:
    return 100.0 * (new - old) / old


def evaluate(
    reference: PairedChange, sweep: list[dict[str, Any]], alloc: dict[str, Any]
) -> list[Target]:
    targets = [
        Target(
            "target 1: 256x4 paired change, 95% CI upper bound < -5%",
            reference.ci_high_pct < TARGET_CI_UPPER_PCT,
            f"{reference.change_pct:+.1f}% (CI {reference.ci_low_pct:+.1f}% .. "
            f"{reference.ci_high_pct:+.1f}%)",
        )
    ]
    row = _row(sweep, 4096, 1)
    change = _pct(row["patched_request_ns"], row["baseline_request_ns"])
    targets.append(
        Target(
            "target 2: 4096x1 at least 40% less time per request",
            change <= -TARGET_4096_SAVING_PCT,
            f"{change:+.1f}% ({row['baseline_request_ns'] / 1e6:.2f} ms -> "
            f"{row['patched_request_ns'] / 1e6:.2f} ms)",
        )
    )
    flat = []
    for choices in CHOICES:
        small, large = _row(sweep, SIZES[0], choices), _row(sweep, SIZES[-1], choices)
        flat.append((choices, _pct(large["patched_chunk_ns"], small["patched_chunk_ns"])))
    targets.append(
        Target(
            f"target 3: patched per-chunk time at {SIZES[-1]} within 10% of {SIZES[0]}",
            all(abs(v) <= TARGET_FLAT_PCT for _, v in flat),
            ", ".join(f"{c} choice{'s' * (c > 1)} {v:+.1f}%" for c, v in flat),
        )
    )
    slopes = alloc["slope_bytes_per_token"]
    patched = [slopes["patched"].get(str(c)) for c in CHOICES]
    baseline = [slopes["baseline"].get(str(c)) for c in CHOICES]
    targets.append(
        Target(
            "target 4: patched allocation per chunk flat in N (slope < 1 B per history token)",
            all(s is not None and abs(s) < TARGET_ALLOC_SLOPE for s in patched),
            "patched "
            + ", ".join(f"{_fmt(s)} B/token ({c}ch)" for c, s in zip(CHOICES, patched, strict=True))
            + "; baseline "
            + ", ".join(
                f"{_fmt(s)} B/token ({c}ch)" for c, s in zip(CHOICES, baseline, strict=True)
            ),
        )
    )
    return targets


def within_stream_line(rounds: list[dict[str, Any]]) -> str:
    """Per-chunk time late vs early in the same longest streams (not a target: it shows
    how much of a sweep difference is history rather than the time the ops ran at)."""
    parts = []
    for label in LABELS:
        for choices in CHOICES:
            early, late = [], []
            for rnd in rounds:
                for c in rnd[label]:
                    if _key(c["case"]) == (SIZES[-1], choices):
                        bins = {b["lo"]: b["median_ns"] for b in c["bins"]}
                        if 256 in bins and SIZES[-1] // 2 in bins:
                            early.append(bins[256])
                            late.append(bins[SIZES[-1] // 2])
            if early:
                change = _pct(statistics.median(late), statistics.median(early))
                parts.append(f"{label} {change:+.1f}% ({choices}ch)")
    return (
        f"info: in the {SIZES[-1]}-token streams, per-chunk time at history "
        f"{SIZES[-1] // 2}-{SIZES[-1] - 1} vs 256-511: " + ", ".join(parts)
    )


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


# --- reporting ------------------------------------------------------------------------


def reference_line(ref: PairedChange) -> str:
    return (
        f"paired median change (candidate - baseline, {ref.pairs} pairs): "
        f"{ref.change_pct:+.2f}% of the baseline median, "
        f"{int(ref.level * 100)}% bootstrap CI {ref.ci_low_pct:+.2f}% .. {ref.ci_high_pct:+.2f}%"
    )


def _reference_cells(ref: PairedChange) -> list[list[str]]:
    return [
        ["baseline", f"{ref.baseline_median:,.0f}", f"{1e9 / ref.baseline_median:,.1f}"],
        ["patched", f"{ref.candidate_median:,.0f}", f"{1e9 / ref.candidate_median:,.1f}"],
    ]


def reference_table(ref: PairedChange) -> Table:
    table = Table(
        title="reference: 256 tokens x 4 interleaved choices, logprobs on "
        "(op = one request; handler CPU time; medians over pairs)",
        title_justify="left",
    )
    for column in ("tree", "ns/op", "ops/s"):
        table.add_column(column, justify="right" if column != "tree" else "left")
    for cells in _reference_cells(ref):
        table.add_row(*cells)
    return table


SWEEP_COLUMNS = (
    "tokens x choices",
    "chunks",
    "baseline ns/chunk",
    "patched ns/chunk",
    "change",
    "baseline ms/request",
    "patched ms/request",
    "change",
    "baseline B/chunk",
    "patched B/chunk",
)


def _sweep_cells(sweep: list[dict[str, Any]], alloc: dict[str, Any]) -> list[list[str]]:
    peaks = {
        (a["tree"], a["tokens"], a["choices"]): a["median_peak_bytes"] for a in alloc["per_case"]
    }
    rows = []
    for r in sweep:
        key = (r["tokens"], r["choices"])
        rows.append(
            [
                f"{r['tokens']} x {r['choices']}",
                f"{r['chunks']:,}",
                f"{r['baseline_chunk_ns']:,.0f}",
                f"{r['patched_chunk_ns']:,.0f}",
                f"{_pct(r['patched_chunk_ns'], r['baseline_chunk_ns']):+.1f}%",
                f"{r['baseline_request_ns'] / 1e6:,.2f}",
                f"{r['patched_request_ns'] / 1e6:,.2f}",
                f"{_pct(r['patched_request_ns'], r['baseline_request_ns']):+.1f}%",
                _bytes(peaks.get(("baseline", *key))),
                _bytes(peaks.get(("patched", *key))),
            ]
        )
    return rows


def _bytes(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def sweep_table_of(sweep: list[dict[str, Any]], alloc: dict[str, Any]) -> Table:
    table = Table(
        title="scaling sweep (logprobs on, one token per result; ns/chunk = median per-chunk "
        "time; B/chunk = median tracemalloc peak per chunk)",
        title_justify="left",
    )
    for column in SWEEP_COLUMNS:
        table.add_column(column, justify="left" if column.startswith("tokens") else "right")
    for cells in _sweep_cells(sweep, alloc):
        table.add_row(*cells)
    return table


def _md_table(columns: tuple[str, ...] | list[str], rows: list[list[str]]) -> list[str]:
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(columns))) + "|"
    return [head, rule, *("| " + " | ".join(r) + " |" for r in rows)]


def markdown(
    ref: PairedChange,
    ref_line: str,
    sweep: list[dict[str, Any]],
    alloc: dict[str, Any],
    target_lines: list[str],
    notes: list[str],
    plot: Path,
) -> str:
    parts = [
        "Reference: 256 tokens x 4 interleaved choices, logprobs on "
        "(op = one request; handler CPU time; medians over pairs)",
        "",
        *_md_table(["tree", "ns/op", "ops/s"], _reference_cells(ref)),
        "",
        ref_line,
        "",
        "Scaling sweep (ns/chunk = median per-chunk time; B/chunk = median tracemalloc peak "
        "per chunk)",
        "",
        *_md_table(SWEEP_COLUMNS, _sweep_cells(sweep, alloc)),
        "",
        *(f"    {line}" for line in [*target_lines, *notes]),
        "",
        f"Plot: `{console.rel(plot)}` (per-chunk time against history length, {SIZES[-1]}-token streams)",
    ]
    return "\n".join(parts) + "\n"


def write_plot(rounds: list[dict[str, Any]], path: Path) -> None:
    """Per-chunk time against history length from the longest streams, both trees."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=120)
    styles = {"baseline": "tab:red", "patched": "tab:blue"}
    for label in ("baseline", "patched"):
        for choices in CHOICES:
            bins: dict[int, list[float]] = {}
            for rnd in rounds:
                for c in rnd[label]:
                    if _key(c["case"]) == (SIZES[-1], choices):
                        for b in c["bins"]:
                            bins.setdefault(b["lo"], []).append(b["median_ns"])
            # Chunks at full length are the finished choices' last reports (usage).
            xs = sorted(x for x in bins if x < SIZES[-1])
            ax.plot(
                [x * 1.414 for x in xs],  # geometric centre of [lo, 2 lo)
                [statistics.median(bins[x]) / 1000 for x in xs],
                color=styles[label],
                linestyle="-" if choices == 1 else "--",
                marker="o",
                markersize=3,
                label=f"{label}, {choices} choice{'s' * (choices > 1)}",
            )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("history length of the choice (tokens already streamed)")
    ax.set_ylabel("handler time per chunk (µs, median per bin)")
    ax.set_title(f"dynamo TRT-LLM handler, {SIZES[-1]}-token streams, logprobs on", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".png")
    os.close(fd)
    try:
        fig.savefig(tmp)
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        Path(tmp).unlink(missing_ok=True)


# --- environment ----------------------------------------------------------------------


def _loadavg() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


def _cpu_times() -> list[int] | None:
    """The aggregate ``cpu`` line of /proc/stat (user nice system idle iowait irq softirq
    steal ...), to report how much CPU the hypervisor took from this machine meanwhile."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    return [int(f) for f in fields[1:]] if fields and fields[0] == "cpu" else None


def _steal_pct(before: list[int] | None, after: list[int] | None) -> float | None:
    if not before or not after or len(before) < 8 or len(after) < 8:
        return None
    total = sum(after) - sum(before)
    return 100.0 * (after[7] - before[7]) / total if total > 0 else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _environment(
    child: dict[str, Any], before: tuple, after: tuple, steal: float | None
) -> dict[str, Any]:
    return {
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadavg_before": list(before),
        "loadavg_after": list(after),
        "cpu_steal_pct": steal,
        "child": child.get("environment"),
        "modules": child.get("modules"),
        "timer": "op: time.thread_time_ns (handler thread CPU time, gc disabled); "
        "per chunk: time.perf_counter_ns between chunks",
    }


def _command(args: Options) -> str:
    parts = ["nox", "-s", "bench"]
    extra = []
    if args.quick:
        extra.append("--quick")
    for name in ("pairs", "ops", "warmup", "rounds"):
        if getattr(args, name) is not None:
            extra += [f"--{name}", str(getattr(args, name))]
    if args.strict:
        extra.append("--strict")
    return shlex.join(parts + (["--", *extra] if extra else []))
