"""Engine double: replays a :class:`~.script.Script` as TRT-LLM streams it; logprob dicts are made
when handed out, fresh as a real engine's (built ahead, they'd lie cold and charge both trees)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from dynpatch.replay.script import RAISE_KINDS, Position, Script


@dataclass(slots=True)
class ReplayOutput:
    """TRT-LLM ``CompletionOutput`` shape: the fields dynamo's handler reads."""

    index: int
    text: str = ""
    token_ids: list[int] = field(default_factory=list)
    cumulative_logprob: float | None = None
    logprobs: list[Any] = field(default_factory=list)
    prompt_logprobs: list[Any] = field(default_factory=list)
    finish_reason: str | None = None
    stop_reason: str | int | None = None
    disaggregated_params: Any = None
    request_perf_metrics: Any = None


@dataclass(frozen=True, slots=True)
class KvCacheMetrics:
    num_reused_blocks: int
    num_missed_blocks: int


@dataclass(frozen=True, slots=True)
class PerfMetrics:
    """TRT-LLM ``RequestPerfMetrics``: dynamo before 1.5.0 reads the cached prompt here."""

    kv_cache_metrics: KvCacheMetrics
    timing_metrics: Any = None


KV_BLOCK = 32  # tokens per KV-cache block: dynamo's default kv_block_size


def perf_metrics(script: Script) -> PerfMetrics | None:
    """The metrics of a prompt ``script.cached_tokens`` cached, in whole blocks (None: none)."""
    if script.cached_tokens is None:
        return None
    missed = max(len(script.prompt) - script.cached_tokens, 0)
    return PerfMetrics(KvCacheMetrics(-(-script.cached_tokens // KV_BLOCK), -(-missed // KV_BLOCK)))


@dataclass(frozen=True)
class Errors:
    """The exception and record types dynamo expects from TRT-LLM and from itself."""

    request_error: type[BaseException]  # tensorrt_llm.executor.utils.RequestError
    engine_shutdown: type[BaseException]  # dynamo.llm.exceptions.EngineShutdown
    logprob: type  # tensorrt_llm.executor.result.Logprob


class EngineFailure(RuntimeError):
    """The 'fatal' step: an unexpected engine exception dynamo treats as fatal."""


class ReplayResult:
    """TRT-LLM ``GenerationResult`` shape, yielding itself per step (``ids``: token lists' type)."""

    def __init__(self, script: Script, errors: Errors, ids: type[list[int]] = list):
        self.request_id = 1
        self.outputs: list[ReplayOutput] = []
        self.finished = False
        self.cached_tokens = script.cached_tokens
        self.aborted = 0
        self._next = 0
        self._suspend = script.suspend
        self._logprob = errors.logprob
        metrics = perf_metrics(script)
        self._all = [
            ReplayOutput(i, token_ids=ids(), request_perf_metrics=metrics) for i in range(script.n)
        ]
        for out in self._all:
            out.prompt_logprobs = list(self._made(script.engine_prompt_logprobs or ()))
        kinds = (errors.request_error, EngineFailure, errors.engine_shutdown)
        raises = dict(zip(RAISE_KINDS, kinds, strict=True))
        self._plan = [  # per step: it, its outputs and deltas, what it raises
            (
                step,
                [(self._all[d.index], d) for d in step.deltas],
                raises[step.raise_kind](step.message) if step.raise_kind else None,
            )
            for step in script.steps
        ]

    def _made(self, positions: tuple[Position, ...]) -> Iterator[Any]:
        """The positions as handed out: ``None`` and floats as they are, else a fresh dict."""
        lp = self._logprob
        return (
            p if p is None or isinstance(p, float) else {t: lp(v, r) for t, v, r in p}
            for p in positions
        )

    def abort(self) -> None:
        self.aborted += 1

    def __aiter__(self) -> ReplayResult:
        return self

    async def __anext__(self) -> ReplayResult:
        if self._next >= len(self._plan) or self.finished:
            raise StopAsyncIteration
        step, updates, error = self._plan[self._next]
        self._next += 1
        if self._suspend:
            await asyncio.sleep(0)  # an empty engine queue: other tasks (cancellation) may run
        if error is not None:
            raise error
        for out, d in updates:
            out.token_ids.extend(d.tokens)
            if d.logprobs:
                out.logprobs.extend(self._made(d.logprobs))
            if d.trim:
                del out.token_ids[-d.trim :]
            if d.finish_reason is not None:
                out.finish_reason = d.finish_reason
            if d.stop_reason is not None:
                out.stop_reason = d.stop_reason
        self.outputs = [] if step.no_outputs else self._all
        self.finished = step.finished
        return self


def _canonical(value: Any) -> Any:
    """A JSON-able record of one argument dynamo submitted (compared across trees too)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"__type__": type(value).__name__, **dataclasses.asdict(value)}
    if isinstance(value, (list, tuple)):
        return list(value)
    if value is None or isinstance(value, (str, int, float, bool, dict)):
        return value
    return {"__type__": type(value).__name__}


class ReplayEngine:
    """``TensorRTLLMEngine`` as far as the request and fatal paths reach (its own ``.llm``)."""

    def __init__(self, script: Script, errors: Errors, ids: type[list[int]] = list):
        self.llm = self
        self._script = script
        self._prepared: ReplayResult | None = ReplayResult(script, errors, ids)  # before timing
        self.calls: list[dict[str, Any]] = []
        self.submitted: ReplayResult | None = None

    # Explicit keywords: on a TypeError dynamo inspects them (API mismatch or rejection?).
    def generate_async(
        self,
        inputs: Any,
        sampling_params: Any,
        disaggregated_params: Any = None,
        streaming: bool = False,
        trace_headers: Any = None,
        scheduling_params: Any = None,
        priority: Any = None,
        cache_salt: Any = None,
    ) -> ReplayResult:
        call = {k: v for k, v in locals().items() if k != "self"}
        self.calls.append({k: _canonical(call[k]) for k in sorted(call)})
        if self._script.reject is not None:
            raise ValueError(self._script.reject)
        if self._prepared is None:
            raise RuntimeError("the engine double replays one request per instance")
        self.submitted, self._prepared = self._prepared, None
        return self.submitted

    def get_health_check_fatal_error(self) -> None:
        return None

    async def cleanup(self) -> None:
        """Awaited by ``HandlerBase._initiate_shutdown`` before 1.6.0, before its exit."""
