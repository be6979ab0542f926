"""The bench: count each tree's instructions, judge the gates, time the A/B. Trees: baseline,
patched, the alternative (the baseline less its history copy; informative) and, with
``--mutant``, the patched tree with the copy planted back, whose gates must miss."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

from dynpatch import console, series
from dynpatch.console import err
from dynpatch.errors import ToolkitError
from dynpatch.evidence import Bench, Record, Script, Spread
from dynpatch.fetch import Checkout
from dynpatch.io import files, proc
from dynpatch.replay import callgrind, runner
from dynpatch.replay.counted import WARMUP
from dynpatch.services import variants
from dynpatch.services.bench import ab, gates, plan, report, valgrind
from dynpatch.services.bench.counts import TreeCounts, slope
from dynpatch.services.trees import Trees, prepare_trees
from dynpatch.workspace import Workspace

RECORD, PLOT = "instructions.json", "instructions.png"
VARIANTS = ("alternative", "mutant")  # judged by the gates beside the patched tree


def cpu() -> str:
    """The CPU's model name (from /proc/cpuinfo, else the platform) and how many."""
    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.is_file() else []
    model = next((ln.split(":", 1)[1].strip() for ln in lines if "model name" in ln), None)
    if model is None:
        model = platform.processor() or platform.machine()
    return f"{model} x{os.cpu_count()}"


REF = f"{plan.REFERENCE.tokens}x{plan.REFERENCE.choices}"  # the case counted twice


def rerun(python: str, tree: Path, script: Path) -> Script:
    """The reviewer's ``script`` run as a reviewer runs it (in ``tree``), its figures read
    from its ``--json`` output."""
    done = proc.run([python, script, "--json"], doing=script.name, timeout=600, cwd=tree)
    if done.returncode != 0:
        raise ToolkitError(f"{script.name} failed on {console.rel(tree)}: {done.last_line()}")
    try:
        said = json.loads(done.stdout)
        per_chunk_us, request_ms = (
            {k: {c: Spread(tuple(runs)) for c, runs in v.items()} for k, v in said[key].items()}
            for key in ("per_chunk_us", "request_ms")
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ToolkitError(f"{script.name} --json printed no figures: {exc}") from None
    machine = f"{cpu()}, Python {said.get('python')}"
    sha = hashlib.sha256(script.read_bytes()).hexdigest()
    return Script(sha, machine, str(said.get("tree")), per_chunk_us, request_ms)


def how(version: str, hello: dict[str, Any], layout: list[str]) -> dict[str, Any]:
    """How the counts were made: the tool and its options, the interpreter, the machine."""
    env = hello.get("environment") or {}
    return {
        "valgrind": version,
        "options": list(valgrind.OPTIONS),
        "python": f"{env.get('implementation')} {env.get('python')}",
        "machine": f"{platform.machine()} ({cpu()})",
        "environment": plan.ENV,
        "address_randomisation": "off (setarch -R)" if layout else "on (setarch -R refused)",
        "warmup_requests": WARMUP,
    }


def how_line(how: dict[str, Any]) -> str:
    return (
        f"how: {how['valgrind']} {' '.join(how['options'])} (counting switched on around "
        f"the replayed requests only), {how['python']} on {how['machine']}, "
        f"{' '.join(f'{k}={v}' for k, v in how['environment'].items())}, address-space "
        f"randomisation {how['address_randomisation']}; 1 counted request per case after "
        f"{how['warmup_requests']} warm-up"
    )


def preflight() -> str:
    """valgrind's path, when this machine can count instructions; else one ToolkitError."""
    valgrind_path = valgrind.find()
    if not callgrind.supported():
        raise ToolkitError(
            f"instruction counts need x86-64 Linux (callgrind client requests), "
            f"not {platform.system()} {platform.machine()}"
        )
    return valgrind_path


def measure(
    checkout: Checkout,
    patches: Path,
    ws: Workspace,
    out_dir: Path,
    *,
    mutant: bool,
    python: str = sys.executable,
) -> Measured:
    """Count, judge, time and rerun on the trees of ``checkout`` without and with ``patches``."""
    start = time.perf_counter()
    valgrind_path = preflight()
    version = valgrind.version(valgrind_path)
    with err.status("preparing the baseline and patched trees ..."):
        trees = prepare_trees(checkout, patches, ws.trees)
    srcs = {"baseline": trees.src(trees.baseline), "patched": trees.src(trees.patched)}
    with err.status(f"running {ws.rerun.name} on the patched tree ..."):
        script = rerun(sys.executable, trees.patched, ws.rerun)
    lock = files.lock(ws.locks / f"{out_dir.name}.lock", f"{out_dir}")
    with lock, files.owned_dir(out_dir.parent, ".variants-") as scratch:
        design = series.design_of(patches)
        alternative, planted = variants.alternative(design), variants.mutant(design)
        what = {v.name: v.what for v in (alternative, planted)}
        build = variants.build
        srcs["alternative"] = build(srcs["baseline"], scratch / "alternative", alternative.edit)
        if mutant:
            srcs["mutant"] = build(srcs["patched"], scratch / "mutant", planted.edit)
        with files.staged_dir(out_dir) as stage:
            tree_of = {t: runner.Tree(t, s) for t, s in srcs.items()}
            found = _measure(tree_of, stage, valgrind_path, design.keyword, python)
            found["how"] = how(version, found["hello"], found["layout"])
            data, lines, passed = _judge(found, what)
            data["trees"] = {
                "base": trees.base,
                "series_sha256": trees.series_sha256,
                "code_sha256": trees.code_sha256,
                "release": checkout.release.version,
                "mutant": mutant,
                "design": design.name,
                "alternative": alternative.what,
            }
            data["seconds"] = round(time.perf_counter() - start, 1)
            files.write_atomic(stage / "bench.json", json.dumps(data, indent=1) + "\n")
            files.write_atomic(stage / PLOT, report.plot_png(found["counts"]))
    return Measured(trees, passed, lines, data, found["counts"], script)


@dataclass(frozen=True)
class Measured:
    trees: Trees
    passed: bool
    lines: list[str]
    data: dict[str, Any]
    counts: dict[str, TreeCounts]
    script: Script

    def record(self, command: str) -> Record[Bench]:
        """The evidence record of this run (its table and lines as the summary)."""
        md = "\n".join([*report.table(self.counts), "", *(f"    {ln}" for ln in self.lines)])
        details = {k: v for k, v in self.data.items() if k != "counts"}
        d, again = self.data, self.data["agreement"]
        requests = {
            case: {
                t: Spread(
                    tuple(again[t]) if case == REF and t in again else (row[t]["instructions"],)
                )
                for t in self.counts
            }
            for case, row in d["requests"].items()
        }
        long = d["per_chunk"][f"{plan.STREAMS[0].tokens}x{plan.STREAMS[0].choices}"]
        label = lambda gates: tuple(str(g["label"]).split(":")[0] for g in gates)  # noqa: E731
        facts = Bench(
            requests=requests,
            late_vs_early_pct={t: float(v["late_vs_early_pct"]) for t, v in long.items()},
            missed=label(g for g in d["gates"] if not g["met"]),
            mutant_met=label(g for g in d["mutant_gates"] if g["met"])
            if "mutant" in self.counts
            else None,
            script=self.script,
        )
        problems = (
            *(f"{g} missed" for g in facts.missed),
            *(f"the planted copy meets {g}" for g in facts.mutant_met or ()),
        )
        t = self.trees
        design = d["trees"]["design"]
        return Record(facts, t.base, t.series_sha256, design, problems, command, md + "\n", details)


def _measure(
    tree_of: dict[str, runner.Tree], stage: Path, valgrind_path: str, keyword: str, python: str
) -> dict[str, Any]:
    """Every tree counted (the baseline and patched twice), allocated and (the pair) timed."""
    layout = valgrind.fixed_layout()
    kw = {"valgrind_path": valgrind_path, "prefix": layout, "python": python}
    runs = {t: [plan.measures(), *([plan.AGAIN] if t in plan.PAIR else [])] for t in tree_of}
    tasks = [
        ("counts", partial(plan.count, list(tree_of.values()), runs, stage / "children", **kw)),
        ("allocation and A/B", partial(plan.native, tree_of, stage / "native", python)),
    ]
    err.print(
        f"counting with {valgrind.TOOL}: {len(tree_of)} trees in one child (the baseline "
        f"and the patched tree twice), {plan.JOBS} trees at a time; natively beside it: "
        "allocation and the timed A/B",
        markup=False,
    )
    finished: dict[str, float] = {}
    done = plan.run_all(tasks, finished)
    native, loadavg = done["allocation and A/B"]
    counted: dict[str, plan.Counted] = done["counts"]
    runner.check_trees(counted["baseline"].hello, counted["patched"].hello, keyword)
    samples = {t: native[t]["alloc"] for t in tree_of}
    return {
        "counts": {label: c.runs[0] for label, c in counted.items()},
        "again": {label: counted[label].runs[1] for label in plan.PAIR},
        "hello": counted["baseline"].hello,
        "alloc": {
            "slope_bytes_per_token": {
                t: {n: slope([h for h, _ in s], [p for _, p in s]) for n, s in by.items()}
                for t, by in samples.items()
            },
            "samples": samples,
        },
        "ab": ab.summary({t: native[t]["ops_ns"] for t in plan.PAIR}, loadavg),
        "finished_after_s": finished,
        "layout": layout,
    }


def _judge(found: dict[str, Any], what: dict[str, str]) -> tuple[dict[str, Any], list[str], bool]:
    """The record, lines and verdict: every gate met by patched and (if run) missed by mutant."""
    counts: dict[str, TreeCounts] = found["counts"]
    alloc = found["alloc"]["slope_bytes_per_token"]
    verdicts = gates.evaluate(counts["baseline"], counts["patched"], alloc)
    verdicts.append(gates.agreement({t: counts[t] for t in plan.PAIR}, found["again"]))
    met = sum(g.met for g in verdicts)
    passed = met == len(verdicts)
    lines = [report.slope_line(counts), *(g.line() for g in verdicts)]
    lines.append(f"gates met: {met} of {len(verdicts)}")
    judged: dict[str, list[gates.Gate]] = {}
    for name in VARIANTS:
        if name in counts:
            judged[name] = gates.evaluate(counts["baseline"], counts[name], alloc, name=name)
            lines += [f"{name}: {what[name]}", *(f"  {g.line()}" for g in judged[name])]
    if "mutant" in judged:
        blind = [g.label.split(":")[0] for g in judged["mutant"] if g.met]
        caught = f"every gate misses the planted history copy ({len(judged['mutant'])} of them)"
        lines.append(f"mutant: NOT caught by {', '.join(blind)}" if blind else f"mutant: {caught}")
        passed = passed and not blind
    lines += [found["ab"]["line"], how_line(found["how"])]
    data = {
        "what": plan.COUNTED,
        "how": found["how"],
        **report.figures(counts),
        "agreement": {
            t: [c.request(plan.REFERENCE).instructions for c in (counts[t], found["again"][t])]
            for t in plan.PAIR
        },
        "alloc": found["alloc"],
        "gates": [g.__dict__ for g in verdicts],
        **{f"{n}_gates": [g.__dict__ for g in judged.get(n, [])] for n in VARIANTS},
        "ab": found["ab"],
        "verdict": "pass" if passed else "fail",
        "finished_after_s": found["finished_after_s"],
        "counts": {t: asdict(c) for t, c in counts.items()},
    }
    return data, lines, passed


def reference(
    data: dict[str, Any], counts: dict[str, TreeCounts], command: str
) -> dict[str, bytes]:
    """The reference's two files for ``docs/bench/``: baseline and patched, and the other
    design's share of the baseline (what a fix upstream in its shape would leave)."""
    pair = {t: counts[t] for t in plan.PAIR}
    other = {
        c: r["alternative/baseline"] for c, r in data["requests"].items() if "alternative" in r
    }
    ref = {
        **{k: data["trees"][k] for k in ("code_sha256", "series_sha256", "base", "release")},
        **({"alternative/baseline": other, "design": data["trees"]["design"]} if other else {}),
        "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
        **{k: data[k] for k in ("what", "how", "agreement", "gates")},
        **report.figures(pair),
        "command": command,
    }
    text = json.dumps(ref, indent=1, sort_keys=True) + "\n"
    return {RECORD: text.encode(), PLOT: report.plot_png(pair)}
