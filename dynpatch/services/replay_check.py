"""Stage verify: dynamo's real TRT-LLM handler emits identical chunk streams on both trees:
the named scenarios and ``--budget`` hypothesis streams through each tree's handler, one
child forking a copy per tree, two at a time, every record compared as canonical JSON."""

from __future__ import annotations

import dataclasses
import json
import random
import shlex
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from dynpatch import console, series
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.evidence import Record, Verify
from dynpatch.fetch import Checkout, FetchOptions
from dynpatch.io import files
from dynpatch.pin import version_key
from dynpatch.replay import expect, runner, scenarios, wire
from dynpatch.replay.script import Script, to_json
from dynpatch.results import StageResult
from dynpatch.services import variants
from dynpatch.services.trees import prepare_trees

DEFAULT_BUDGET = 200
JOBS = 2  # trees replayed at once (copies of one child)
_DRAW = threading.Lock()  # hypothesis is not thread-safe; the matrix verifies on threads
# What the property streams reached, reported so a weak draw is visible.
TRAITS = ("log_probs", "top_logprobs", "dropped", "flat", "error_chunk", "worker_exit", "raised")


@dataclass
class ScenarioOutcome:
    name: str
    chunks: int
    events: list[str]
    divergence: wire.Divergence | None = None
    unmet: list[str] = field(default_factory=list)
    traits: list[str] = field(default_factory=list)  # which TRAITS the baseline stream shows

    @property
    def verdict(self) -> str:
        return (
            "DIVERGED" if self.divergence else "expectation not met" if self.unmet else "identical"
        )

    @property
    def ok(self) -> bool:
        return self.verdict == "identical"


@dataclass(frozen=True, kw_only=True)
class VerifyOptions(FetchOptions):
    budget: int = DEFAULT_BUDGET  # hypothesis property streams (0: none)
    seed: int | None = None  # None: a fresh one, printed
    scenario: list[str] | None = None  # only these named scenarios
    python: str = sys.executable  # interpreter of the replay children
    alternative: bool = True  # also replay the alternative (informative; not in the matrix)
    out: Path | None = None  # None: out/verify


def _scenarios(args: VerifyOptions) -> list[str]:
    if args.budget < 0:
        raise ToolkitError(f"--budget must be 0 or more, not {args.budget}")
    names = args.scenario or list(scenarios.NAMED)
    if unknown := [n for n in names if n not in scenarios.NAMED]:
        raise ToolkitError(f"unknown scenario {unknown[0]!r}; known: {', '.join(scenarios.NAMED)}")
    return names


def check(
    args: VerifyOptions,
    checkout: Checkout,
    patches: Path,
    trees_dir: Path,
    out_dir: Path,
    screen: Console = err,
) -> StageResult:
    """Replay ``checkout`` without and with the series in ``patches``; report in ``out_dir``."""
    start = time.perf_counter()
    names = _scenarios(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    with screen.status("preparing the baseline and patched trees ..."):
        trees = prepare_trees(checkout, patches, trees_dir)
    properties: list[Script] = []
    if args.budget:
        try:
            from dynpatch.replay.properties import draw_scripts
        except ImportError:
            raise ToolkitError("hypothesis is not installed here: run `nox -s verify`") from None
        with screen.status(f"drawing {args.budget} property streams (seed {seed}) ..."), _DRAW:
            properties = draw_scripts(args.budget, seed)
    job = {"scenarios": names, "scripts": [to_json(s) for s in properties]}
    count, skipped = len(names) + len(properties), "" if args.alternative else "not asked for"
    out_dir.mkdir(parents=True, exist_ok=True)
    design = series.design_of(patches)
    other = variants.alternative(design)
    with files.owned_dir(out_dir, ".alternative-") as scratch:
        srcs = {"baseline": trees.src(trees.baseline), "patched": trees.src(trees.patched)}
        try:
            if args.alternative:
                srcs["alternative"] = variants.build(srcs["baseline"], scratch, other.edit)
        except ToolkitError as exc:  # this release's helper has no such copy to drop
            skipped = str(exc)
        labelled = [runner.Tree(label, src) for label, src in srcs.items()]
        t0, on, logs = time.perf_counter(), f"{', '.join(srcs)} trees", out_dir / "logs"
        with screen.status(f"replaying {count} scenarios on the {on}, {JOBS} at a time ..."):
            results = runner.run_trees(labelled, job, logs, jobs=JOBS, python=args.python)
        seconds = time.perf_counter() - t0
        screen.print(f"replayed {count} scenarios on the {on} in {seconds:.0f} s", markup=False)
    runner.check_trees(results["baseline"], results["patched"], design.keyword)

    expected = {s.name: s.expect for s in scenarios.named(names)}
    expectations, waived = for_release(expected, checkout.release.version)
    outcomes = compare(results["baseline"], results["patched"], expectations)
    if len(outcomes) != count:
        raise ToolkitError(f"the replay returned {len(outcomes)} of {count} scenarios")
    alternative, apart = alternative_line(results, other, skipped)
    lines = [
        *(
            f"{o.name:<44} {o.chunks:>6}  {', '.join(o.events) or '-':<12} {o.verdict}"
            for o in outcomes[: len(names)]
        ),
        *summary_lines(outcomes, len(names), len(properties), seed, args.budget),
        alternative,
    ]
    if waived:
        lines.append(f"not expected of ai-dynamo {checkout.release.version}: {'; '.join(waived)}")
    lines.append(f"timing: {time.perf_counter() - start:.1f} s")
    details = {
        "seed": seed,
        "budget": args.budget,
        "scenarios": [dataclasses.asdict(o) for o in outcomes],
        "not_expected": waived,
        "design": design.name,
        "alternative": {"what": other.what, "line": alternative},
        "modules": {label: r["modules"] for label, r in results.items()},
        "fatal_seam": results["baseline"].get("fatal_seam"),
        "environment": results["baseline"].get("environment"),
    }
    report = out_dir / "verify.json"
    files.write_atomic(report, json.dumps(details, indent=2) + "\n")
    ok = all(o.ok for o in outcomes)
    command = ["nox", "-s", "verify", "--", "--budget", str(args.budget), "--seed", str(seed)]
    command += [word for name in args.scenario or () for word in ("--scenario", name)]
    differ = tuple(f"{o.name}: {o.divergence.place}" for o in outcomes if o.divergence)
    facts = Verify(
        streams=len(outcomes),
        drawn=len(properties),
        chunks=sum(o.chunks for o in outcomes),
        differ=differ,
        unmet=tuple(f"{o.name}: {'; '.join(o.unmet)}" for o in outcomes if o.unmet),
        alternative_differ=apart,
        seed=seed,
    )
    record = Record(
        facts,
        trees.base,
        trees.series_sha256,
        design.name,
        (*differ, *facts.unmet),  # the problems
        shlex.join(command),
        "".join(f"    {line}\n" for line in lines),  # the summary
        details,
    )
    return StageResult(ok, (*lines, f"report: {console.rel(report)}"), (record,))


def alternative_line(
    results: dict[str, dict[str, Any]], other: variants.Variant, skipped: str
) -> tuple[str, int | None]:
    """What the alternative's replay showed against the baseline's (informative), and how
    many streams diverge (None: not replayed)."""
    head = f"alternative ({other.what})"
    if "alternative" not in results:
        return f"{head}: not replayed: {skipped}", None
    outcomes = compare(results["baseline"], results["alternative"], {})
    apart = [o.name for o in outcomes if o.divergence]
    shown = f" ({', '.join(apart[:3])})" if apart else ""
    return f"{head}: {len(apart)} divergences from the baseline{shown}", len(apart)


def for_release(
    expectations: dict[str, tuple[str, ...]], release: str
) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """The expectations ``release`` can meet, and a description of each one it cannot:
    behaviour dynamo has only from a later release on (``scenarios.SINCE``)."""
    kept, waived = {}, []
    for name, names in expectations.items():
        since = {e: scenarios.SINCE.get((name, e), "0") for e in names}
        later = [e for e in names if version_key(release) < version_key(since[e])]
        kept[name] = tuple(e for e in names if e not in later)
        waived += [f"{name}: {e} (dynamo {since[e]} on)" for e in later]
    return kept, waived


def compare(
    baseline: dict[str, Any], patched: dict[str, Any], expectations: dict[str, tuple[str, ...]]
) -> list[ScenarioOutcome]:
    """Scenario by scenario: first divergence, and the named scenario's expectations."""
    a_list, b_list = baseline["scenarios"], patched["scenarios"]
    if [s["name"] for s in a_list] != [s["name"] for s in b_list]:
        raise ToolkitError("the two replays ran different scenario lists")
    outcomes = []
    for a, b in zip(a_list, b_list, strict=True):
        kinds = [json.loads(r)["kind"] for r in a["records"]]
        outcomes.append(
            ScenarioOutcome(
                name=a["name"],
                chunks=kinds.count("chunk"),
                events=[k for k in kinds if k not in ("submit", "chunk")],
                divergence=wire.first_divergence(a["name"], a["records"], b["records"]),
                unmet=[
                    f"{side}: {m}"
                    for side, recs in (("baseline", a["records"]), ("patched", b["records"]))
                    for m in expect.unmet(expectations.get(a["name"], ()), recs)
                ],
                traits=[t for t in TRAITS if not expect.unmet((t,), a["records"])],
            )
        )
    return outcomes


def summary_lines(
    outcomes: list[ScenarioOutcome], named: int, props: int, seed: int, budget: int
) -> list[str]:
    drawn = [o for o in outcomes if o.name.startswith("property-")]
    lines = [
        f"{len(outcomes)} scenarios: {named} named + {props} property streams (hypothesis seed "
        f"{seed}, budget {budget}); {sum(o.chunks for o in outcomes)} chunks compared per tree"
    ]
    if drawn:
        reached = ", ".join(f"{sum(t in o.traits for o in drawn)} {t}" for t in TRAITS)
        lines.append(f"property streams reached: {reached} ({sum(o.chunks for o in drawn)} chunks)")
    for o in outcomes:
        lines += [f"DIVERGENCE: {o.divergence.describe()}"] if o.divergence else []
        lines += [f"EXPECTATION NOT MET: scenario {o.name}: {'; '.join(o.unmet)}"] * bool(o.unmet)
    lines.append(f"{sum(o.divergence is not None for o in outcomes)} divergences")
    if unmet := sum(bool(o.unmet) for o in outcomes):
        lines.append(f"{unmet} scenarios did not show what they are named for")
    return lines
