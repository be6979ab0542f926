"""Child process of the replay, one per tree; runs in the replay environment.

* ``python -m dynpatch.replay.child JOB.json RESULT.json`` - verify: every script once,
  each record serialised canonically when observed; the result written atomically.
* ``python -m dynpatch.replay.child JOB.json --serve`` - benchmark worker: JSON commands
  on stdin (timed replays with optional per-chunk stamps, tracemalloc samples), one JSON
  reply per line.

``PYTHONPATH`` holds one tree's ``components/src`` and the ``tensorrt_llm`` stand-in. The
child imports dynamo's real ``AggregatedHandler``, proves the modules came from the
intended tree, and drives ``AggregatedHandler.generate`` with the engine double.

Standard library plus the replay package only; no toolkit dependencies. A child that
dies before answering (for instance through an ``os._exit`` this harness did not
intercept) is reported by the parent as a failure, never read as an empty result.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import inspect
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from dynpatch.replay import scenarios, wire
from dynpatch.replay.engine import Errors, ReplayEngine
from dynpatch.replay.script import Script, from_json, request_for

# Modules whose origin must be the tree under test (or the stand-in).
TREE_MODULES = (
    "dynamo.common.backend.logprobs",
    "dynamo.trtllm.request_handlers.handler_base",
    "dynamo.trtllm.request_handlers.aggregated_handler",
)
EXIT_CODE_SETUP = 3  # the child could not set up the replay (message in the result)

_worker_exits: list[dict[str, Any]] = []


class SetupError(Exception):
    pass


def _under(path: str | None, root: Path) -> bool:
    if not path:
        return False
    try:
        Path(path).resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


class Replay:
    """Dynamo imported from one tree, the fatal-exit seam observed, handlers on demand."""

    def __init__(self, src: Path, standin: Path):
        self.modules: dict[str, str] = {}
        for name in TREE_MODULES:
            module = importlib.import_module(name)
            self.modules[name] = str(module.__file__)
            if not _under(module.__file__, src):
                raise SetupError(f"{name} was imported from {module.__file__}, not from {src}")
        trt = importlib.import_module("tensorrt_llm")
        self.modules["tensorrt_llm"] = str(trt.__file__)
        if not getattr(trt, "STANDIN", False) or not _under(trt.__file__, standin):
            raise SetupError(f"tensorrt_llm came from {trt.__file__}, not the stand-in {standin}")
        core = importlib.import_module("dynamo._core")
        self.modules["dynamo._core"] = str(core.__file__)

        logprobs = importlib.import_module("dynamo.common.backend.logprobs")
        hb = importlib.import_module("dynamo.trtllm.request_handlers.handler_base")
        agg = importlib.import_module("dynamo.trtllm.request_handlers.aggregated_handler")
        self.has_new_token_ids = (
            "new_token_ids" in inspect.signature(logprobs.extract_from_completion_output).parameters
        )
        # dynamo's fatal path ends in exit_worker_on_fatal_error -> os._exit(1). Replace
        # the name the handler module calls with a recorder, so the exit becomes an
        # observed event of the stream instead of a silent end of this process.
        if not hasattr(hb, "exit_worker_on_fatal_error"):
            raise SetupError(
                "handler_base no longer binds exit_worker_on_fatal_error: "
                "the replay cannot observe dynamo's fatal path (upstream drift)"
            )
        hb.exit_worker_on_fatal_error = self._observe_exit
        self._hb, self._agg = hb, agg

        from dynamo._core import Context
        from dynamo.llm.exceptions import EngineShutdown
        from dynamo.trtllm.constants import DisaggregationMode
        from tensorrt_llm.executor.result import Logprob
        from tensorrt_llm.executor.utils import RequestError
        from tensorrt_llm.sampling_params import SamplingParams

        self.errors = Errors(RequestError, EngineShutdown, Logprob)
        self._context = Context
        self._mode = DisaggregationMode.AGGREGATED
        self._sampling_params = SamplingParams

    @staticmethod
    def _observe_exit(engine: Any, runtime: Any, shutdown_timeout: float | None = None) -> None:
        _worker_exits.append(
            {
                "engine": "engine double" if isinstance(engine, ReplayEngine) else repr(engine),
                "runtime": None if runtime is None else type(runtime).__name__,
            }
        )

    def prepare(self, script: Script, request_id: str) -> tuple[Any, ReplayEngine, Any, Any]:
        """A fresh handler, engine double, request and context (built outside timing)."""
        engine = ReplayEngine(script, self.errors)
        config = self._hb.RequestHandlerConfig(
            engine=engine,
            default_sampling_params=self._sampling_params(),
            publisher=None,
            disaggregation_mode=self._mode,
        )
        handler = self._agg.AggregatedHandler(config)
        return handler, engine, request_for(script), self._context(id=request_id)


# --- verify ---------------------------------------------------------------------------


async def replay_records(replay: Replay, script: Script, timeout: float) -> list[str]:
    """The complete observed stream of one request, canonically serialised."""
    handler, engine, request, context = replay.prepare(script, f"verify-{script.name}")
    _worker_exits.clear()
    chunks: list[str] = []
    tail: list[str] = []

    async def drain() -> None:
        async for chunk in handler.generate(request, context):
            chunks.append(wire.record("chunk", chunk))

    try:
        await asyncio.wait_for(drain(), timeout)
    except TimeoutError:
        raise
    except Exception as exc:  # an exception leaving the handler is an observation
        tail.append(wire.record("raised", {"type": type(exc).__name__, "message": str(exc)}))
    submits = [wire.record("submit", call) for call in engine.llm.calls]
    events = [wire.record("worker_exit", e) for e in _worker_exits]
    submitted = engine.llm.submitted
    if submitted is not None and submitted.aborted:  # dynamo cancelled the engine request
        events.append(wire.record("engine_abort", {"calls": submitted.aborted}))
    return [*submits, *chunks, *events, *tail]


async def run_verify(replay: Replay, job: dict[str, Any]) -> list[dict[str, Any]]:
    scripts = scenarios.named(job.get("scenarios"))
    scripts += [from_json(s) for s in job.get("scripts", [])]
    out = []
    for script in scripts:
        records = await replay_records(replay, script, float(job.get("timeout", 120)))
        out.append({"name": script.name, "records": records})
    return out


# --- bench ----------------------------------------------------------------------------


def chunk_history(script: Script) -> list[int]:
    """Per expected chunk, the cumulative token count of its choice (what a copy copies)."""
    totals = [0] * script.n
    history: list[int] = []
    for step in script.steps:
        if step.raise_kind or step.no_outputs:
            continue
        for d in step.deltas:
            totals[d.index] += len(d.tokens) - d.trim
        history.extend(totals)
    return history


async def timed_op(replay: Replay, script: Script, stamps: list[int] | None) -> tuple[int, int]:
    """One whole request replay; handler CPU time in ns and the number of chunks."""
    handler, _engine, request, context = replay.prepare(script, "bench")
    gc.collect()
    gc.disable()
    try:
        count = 0
        if stamps is None:
            start = time.thread_time_ns()
            async for _ in handler.generate(request, context):
                count += 1
            cpu = time.thread_time_ns() - start
        else:
            # perf_counter_ns per chunk: ~0.1 us a call; thread_time_ns is ~0.9 us here.
            start = time.thread_time_ns()
            last = time.perf_counter_ns()
            async for _ in handler.generate(request, context):
                now = time.perf_counter_ns()
                stamps.append(now - last)
                last = now
            cpu = time.thread_time_ns() - start
            count = len(stamps)
    finally:
        gc.enable()
    return cpu, count


async def alloc_op(replay: Replay, script: Script, samples: int) -> list[list[int]]:
    """tracemalloc peak bytes while producing sampled chunks: ``[[history, peak], ...]``."""
    history = chunk_history(script)
    step = max(1, (len(history) - 1) // max(samples, 1))
    chosen = set(range(1, len(history), step))  # chunk 0 also carries request setup
    handler, _engine, request, context = replay.prepare(script, "alloc")
    agen = handler.generate(request, context)
    out: list[list[int]] = []
    i = 0
    gc.collect()
    gc.disable()
    try:
        while True:
            sampled = i in chosen
            if sampled:
                tracemalloc.start()
            try:
                await agen.__anext__()
            except StopAsyncIteration:
                if sampled:
                    tracemalloc.stop()
                break
            if sampled:
                _current, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
                out.append([history[i], peak])
            i += 1
    finally:
        gc.enable()
    if i != len(history):
        raise RuntimeError(f"{script.name}: {i} chunks, expected {len(history)}")
    return out


def _bins(history: list[int], stamps: list[int]) -> list[dict[str, Any]]:
    """Median per-chunk time in power-of-two history bins [2^j, 2^(j+1))."""
    groups: dict[int, list[int]] = {}
    for h, ns in zip(history, stamps, strict=True):
        groups.setdefault(max(h, 1).bit_length() - 1, []).append(ns)
    return [
        {
            "lo": 1 << j,
            "hi": 1 << (j + 1),
            "count": len(v),
            "median_ns": statistics.median(v),
        }
        for j, v in sorted(groups.items())
    ]


class Cases:
    """Benchmark streams by case, built once per process (building is not timed)."""

    def __init__(self) -> None:
        self._scripts: dict[tuple[int, int, int], Script] = {}

    def get(self, case: dict[str, Any]) -> Script:
        key = (int(case["tokens"]), int(case["choices"]), int(case.get("k", 1)))
        if key not in self._scripts:
            self._scripts[key] = scenarios.stream(key[0], key[1], k=key[2])
        return self._scripts[key]


async def time_case(replay: Replay, script: Script, ops: int, stamps: bool) -> dict[str, Any]:
    """``ops`` timed replays of ``script``: CPU ns per op, and per-chunk stamps if asked."""
    history = chunk_history(script)
    ops_ns: list[int] = []
    per_op: list[float] = []
    pooled: list[int] = []
    for _ in range(ops):
        op_stamps: list[int] | None = [] if stamps else None
        cpu, count = await timed_op(replay, script, op_stamps)
        if count != len(history):
            raise RuntimeError(f"{script.name}: {count} chunks, expected {len(history)}")
        ops_ns.append(cpu)
        if op_stamps is not None:
            # Steady-state chunks only: the first one also carries the request's setup,
            # the final result's ones the usage report.
            steady = op_stamps[1 : len(op_stamps) - script.n]
            per_op.append(statistics.median(steady))
            pooled.extend(steady)
    out: dict[str, Any] = {"script": script.name, "chunks": len(history), "ops_ns": ops_ns}
    if pooled:
        out["per_op_chunk_median_ns"] = per_op
        out["chunk_median_ns"] = statistics.median(pooled)
        out["bins"] = _bins(history[1 : len(history) - script.n] * ops, pooled)
    return out


async def serve(replay: Replay, commands: Any, reply: Any) -> None:
    """Persistent benchmark worker: one JSON command per line in, one JSON reply out.

    Commands: ``time`` (case, ops, stamps), ``alloc`` (case, samples), ``quit``. The
    parent keeps a baseline and a patched worker alive and alternates their ops, so the
    two trees are measured side by side in time while each stays in its own process.
    """
    cases = Cases()
    for line in commands:
        cmd = json.loads(line)
        if cmd["cmd"] == "quit":
            return
        script = cases.get(cmd["case"])
        if cmd["cmd"] == "time":
            result = await time_case(replay, script, int(cmd["ops"]), bool(cmd.get("stamps")))
        elif cmd["cmd"] == "alloc":
            result = {"alloc": await alloc_op(replay, script, int(cmd["samples"]))}
        else:
            raise SetupError(f"unknown command {cmd['cmd']!r}")
        reply.write(json.dumps(result) + "\n")
        reply.flush()


# --- main -----------------------------------------------------------------------------


def _write_atomic(path: Path, data: dict[str, Any]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def environment() -> dict[str, Any]:
    versions = {}
    for dist in ("torch", "transformers", "ai-dynamo-runtime", "pydantic"):
        try:
            from importlib.metadata import version

            versions[dist] = version(dist)
        except Exception:
            versions[dist] = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "pid": os.getpid(),
        "versions": versions,
    }


def _hello(replay: Replay, tree: str | None) -> dict[str, Any]:
    return {
        "ok": True,
        "tree": tree,
        "modules": replay.modules,
        "has_new_token_ids": replay.has_new_token_ids,
        "environment": environment(),
    }


async def _verify(job: dict[str, Any]) -> dict[str, Any]:
    replay = Replay(Path(job["src"]), Path(job["standin"]))
    return {**_hello(replay, job.get("tree")), "scenarios": await run_verify(replay, job)}


async def _serve(job: dict[str, Any], reply: Any) -> None:
    replay = Replay(Path(job["src"]), Path(job["standin"]))
    # Everything imported so far (torch, transformers, dynamo) is long-lived: keep it out
    # of the collections between ops, which would otherwise scan it every time.
    gc.collect()
    gc.freeze()
    reply.write(json.dumps(_hello(replay, job.get("tree"))) + "\n")
    reply.flush()
    await serve(replay, sys.stdin, reply)


def main(argv: list[str]) -> int:
    """``JOB.json RESULT.json`` runs a verify job; ``JOB.json --serve`` a bench worker."""
    if len(argv) != 2:
        print(
            "usage: python -m dynpatch.replay.child JOB.json (RESULT.json | --serve)",
            file=sys.stderr,
        )
        return 2
    job = json.loads(Path(argv[0]).read_text())
    if argv[1] == "--serve":
        # Replies go to the original stdout; anything else printed (by dynamo, by its
        # Rust runtime) goes to stderr, the log, so it cannot corrupt the channel.
        reply = os.fdopen(os.dup(1), "w", buffering=1)
        os.dup2(2, 1)
        try:
            asyncio.run(_serve(job, reply))
        except SetupError as exc:
            reply.write(json.dumps({"ok": False, "error": str(exc)}) + "\n")
            return EXIT_CODE_SETUP
        return 0
    out = Path(argv[1])
    try:
        result = asyncio.run(_verify(job))
    except SetupError as exc:
        _write_atomic(out, {"ok": False, "error": str(exc)})
        return EXIT_CODE_SETUP
    _write_atomic(out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
