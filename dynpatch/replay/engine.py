"""Engine double: replays a :class:`~dynpatch.replay.script.Script` as TRT-LLM would stream it.

It stands where dynamo calls ``engine.llm.generate_async(...)`` and iterates the
returned ``GenerationResult``. Like TRT-LLM, one result object is yielded again and
again, its ``outputs`` are the same ``CompletionOutput`` objects each time, and their
``token_ids`` / ``logprobs`` lists grow in place. The double's own work per result is
proportional to the delta, never to the history: it appends the step's token ids (built
before the request starts) and creates the step's ``{token_id: Logprob}`` positions
then, as a real engine hands over fresh objects for each result. (Positions built ahead
of time would lie cold in memory on long streams and charge both trees a cost that
grows with the stream.)

The ``Logprob`` record and the exception classes come from the ``tensorrt_llm`` stand-in
(the child's import path) so dynamo sees the types it catches.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from dynpatch.replay.script import Position, Script


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
    """TRT-LLM ``KvCacheMetrics``, as far as dynamo reads it."""

    num_reused_blocks: int
    num_missed_blocks: int


@dataclass(frozen=True, slots=True)
class PerfMetrics:
    """TRT-LLM ``RequestPerfMetrics``: dynamo before 1.5.0 reads the cached prompt from
    ``kv_cache_metrics`` (not ``GenerationResult.cached_tokens``); no timing is reported."""

    kv_cache_metrics: KvCacheMetrics
    timing_metrics: Any = None


KV_BLOCK = 32  # tokens per KV-cache block: dynamo's default kv_block_size


def perf_metrics(script: Script) -> PerfMetrics | None:
    """The perf metrics of a request whose prompt is ``script.cached_tokens`` cached (in
    whole blocks, as the KV cache reuses them); None when the script reports no cache."""
    if script.cached_tokens is None:
        return None
    missed = max(len(script.prompt) - script.cached_tokens, 0)
    return PerfMetrics(KvCacheMetrics(-(-script.cached_tokens // KV_BLOCK), -(-missed // KV_BLOCK)))


@dataclass(slots=True)
class _Update:
    output: ReplayOutput
    tokens: list[int]
    positions: tuple[Position, ...]
    finish_reason: str | None
    stop_reason: str | int | None
    trim: int


@dataclass(slots=True)
class _Planned:
    updates: list[_Update]
    finished: bool
    no_outputs: bool
    error: BaseException | None


class ReplayResult:
    """TRT-LLM ``GenerationResult`` shape: async-iterable, yields itself per step."""

    def __init__(
        self, plan: list[_Planned], outputs: list[ReplayOutput], script: Script, logprob_cls: type
    ):
        self.request_id = 1
        self.outputs: list[ReplayOutput] = []
        self.finished = False
        self.cached_tokens = script.cached_tokens
        self.aborted = 0
        self._all = outputs
        self._plan = plan
        self._next = 0
        self._suspend = script.suspend
        self._logprob = logprob_cls

    def abort(self) -> None:
        self.aborted += 1

    def __aiter__(self) -> ReplayResult:
        return self

    async def __anext__(self) -> ReplayResult:
        if self._next >= len(self._plan) or self.finished:
            raise StopAsyncIteration
        step = self._plan[self._next]
        self._next += 1
        if self._suspend:
            # A real engine's queue is sometimes empty: let the event loop run other
            # tasks (dynamo's cancellation monitor) before the result arrives.
            await asyncio.sleep(0)
        if step.error is not None:
            raise step.error
        for u in step.updates:
            out = u.output
            out.token_ids.extend(u.tokens)
            if u.positions:
                lp = self._logprob
                out.logprobs.extend(
                    p
                    if p is None or isinstance(p, float)
                    else {tok: lp(value, rank) for tok, value, rank in p}
                    for p in u.positions
                )
            if u.trim:
                del out.token_ids[-u.trim :]
            if u.finish_reason is not None:
                out.finish_reason = u.finish_reason
            if u.stop_reason is not None:
                out.stop_reason = u.stop_reason
        self.outputs = [] if step.no_outputs else self._all
        self.finished = step.finished
        return self


def _canonical_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A JSON-able record of what dynamo submitted (compared across trees too)."""
    record: dict[str, Any] = {}
    for key in sorted(kwargs):
        value = kwargs[key]
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = {"__type__": type(value).__name__, **dataclasses.asdict(value)}
        elif isinstance(value, (list, tuple)):
            value = list(value)
        elif value is not None and not isinstance(value, (str, int, float, bool, dict)):
            value = {"__type__": type(value).__name__}
        record[key] = value
    return record


class ReplayLLM:
    """``engine.llm``: ``generate_async`` returns the scripted result stream."""

    def __init__(self, script: Script, errors: Errors, ids: type[list[int]] = list):
        self._script = script
        # Built now, before any timing starts: the handler's clock must not pay for it.
        self._prepared: ReplayResult | None = build_result(script, errors, ids)
        self.calls: list[dict[str, Any]] = []
        self.submitted: ReplayResult | None = None

    # The keyword list is explicit: dynamo inspects the signature when the call
    # raises TypeError, to tell an API mismatch from a rejected request.
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
        self.calls.append(
            _canonical_kwargs(
                {
                    "inputs": inputs,
                    "sampling_params": sampling_params,
                    "disaggregated_params": disaggregated_params,
                    "streaming": streaming,
                    "trace_headers": trace_headers,
                    "scheduling_params": scheduling_params,
                    "priority": priority,
                    "cache_salt": cache_salt,
                }
            )
        )
        if self._script.reject is not None:
            raise ValueError(self._script.reject)
        if self._prepared is None:
            raise RuntimeError("the engine double replays one request per instance")
        self.submitted, self._prepared = self._prepared, None
        return self.submitted


class ReplayEngine:
    """``TensorRTLLMEngine`` shape as far as the request path reaches: ``.llm``, and what
    the fatal path calls before it exits the worker."""

    def __init__(self, script: Script, errors: Errors, ids: type[list[int]] = list):
        self.llm = ReplayLLM(script, errors, ids)

    def get_health_check_fatal_error(self) -> None:
        return None

    async def cleanup(self) -> None:
        """Awaited by ``HandlerBase._initiate_shutdown`` before 1.6.0, just before its
        ``os._exit(1)`` (which the replay observes); nothing to release here."""


@dataclass(frozen=True)
class Errors:
    """The exception and record types dynamo expects from TRT-LLM and from itself."""

    request_error: type[BaseException]  # tensorrt_llm.executor.utils.RequestError
    engine_shutdown: type[BaseException]  # dynamo.llm.exceptions.EngineShutdown
    logprob: type  # tensorrt_llm.executor.result.Logprob


class EngineFailure(RuntimeError):
    """The 'fatal' step: an unexpected engine exception dynamo treats as fatal."""


def _position(p: Position, logprob_cls: type) -> Any:
    if p is None or isinstance(p, float):
        return p
    return {tok: logprob_cls(lp, rank) for tok, lp, rank in p}


def build_result(script: Script, errors: Errors, ids: type[list[int]] = list) -> ReplayResult:
    """Pre-build every object the stream will append, then wrap it as a result; each
    output's cumulative ``token_ids`` is an ``ids`` (a list, or a list that watches reads)."""
    metrics = perf_metrics(script)
    outputs = [
        ReplayOutput(index=i, token_ids=ids(), request_perf_metrics=metrics)
        for i in range(script.n)
    ]
    if script.engine_prompt_logprobs is not None:
        for out in outputs:
            out.prompt_logprobs = [
                _position(p, errors.logprob) for p in script.engine_prompt_logprobs
            ]
    plan: list[_Planned] = []
    for step in script.steps:
        error: BaseException | None = None
        if step.raise_kind == "request":
            error = errors.request_error(step.message)
        elif step.raise_kind == "fatal":
            error = EngineFailure(step.message)
        elif step.raise_kind == "shutdown":
            error = errors.engine_shutdown(step.message)
        updates = [
            _Update(
                output=outputs[d.index],
                tokens=list(d.tokens),
                positions=d.logprobs,
                finish_reason=d.finish_reason,
                stop_reason=d.stop_reason,
                trim=d.trim,
            )
            for d in step.deltas
        ]
        plan.append(_Planned(updates, step.finished, step.no_outputs, error))
    return ReplayResult(plan, outputs, script, errors.logprob)
