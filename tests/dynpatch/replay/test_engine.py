"""The engine double and the tensorrt_llm stand-in.

These run in the plain tests venv: the stand-in is pure Python, put on ``sys.path`` only
for the tests that need it and removed again afterwards.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from dynpatch.replay import STANDIN_DIR, scenarios
from dynpatch.replay.engine import EngineFailure, Errors, ReplayEngine
from dynpatch.replay.script import Delta, ReplayStep, Script


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.syspath_prepend(str(STANDIN_DIR))
    import tensorrt_llm

    yield tensorrt_llm
    for name in [m for m in sys.modules if m == "tensorrt_llm" or m.startswith("tensorrt_llm.")]:
        del sys.modules[name]


class Shutdown(Exception):
    pass


@pytest.fixture
def errors(standin: Any) -> Errors:
    from tensorrt_llm.executor.result import Logprob
    from tensorrt_llm.executor.utils import RequestError

    return Errors(RequestError, Shutdown, Logprob)


def drain(result: Any) -> list[list[tuple[int, list[int], int, Any]]]:
    """Snapshot what a consumer sees on each iteration: (index, token ids, #logprobs, finish)."""

    async def go() -> list[list[tuple[int, list[int], int, Any]]]:
        seen = []
        async for res in result:
            assert res is result  # TRT-LLM yields the same result object every time
            seen.append(
                [
                    (o.index, list(o.token_ids), len(o.logprobs), o.finish_reason)
                    for o in res.outputs
                ]
            )
        return seen

    return asyncio.run(go())


def submit(engine: ReplayEngine, script: Script) -> Any:
    return engine.llm.generate_async(inputs=list(script.prompt), sampling_params=None)


def test_cumulative_state_grows_in_place_for_every_choice(errors: Errors) -> None:
    script = scenarios.stream(3, 2)
    engine = ReplayEngine(script, errors)
    result = submit(engine, script)
    outputs = list(result._all)
    seen = drain(result)
    assert len(seen) == 6  # interleaved: one choice grows per result, both are reported
    assert [len(s) for s in seen] == [2] * 6
    assert [len(s[0][1]) for s in seen] == [1, 1, 2, 2, 3, 3]
    assert [len(s[1][1]) for s in seen] == [0, 1, 1, 2, 2, 3]
    assert seen[-1][0][3] == "length" and seen[-1][1][3] == "length"
    assert all(a is b for a, b in zip(result.outputs, outputs, strict=True))
    assert result.finished


def test_logprob_positions_use_the_stand_in_logprob(errors: Errors) -> None:
    script = scenarios.named(["3-choices-interleaved-top5"])[0]
    result = submit(ReplayEngine(script, errors), script)
    drain(result)
    position = result.outputs[0].logprobs[0]
    (first, info), *_ = position.items()
    assert first == result.outputs[0].token_ids[0]
    assert type(info) is errors.logprob and info.rank == 1 and len(position) == 5


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("request", "RequestError"), ("fatal", EngineFailure), ("shutdown", Shutdown)],
)
def test_error_steps_raise_the_types_dynamo_tells_apart(
    errors: Errors, kind: str, expected: Any
) -> None:
    script = Script(
        "e", steps=(ReplayStep((Delta(0, (5,)),)), ReplayStep(raise_kind=kind, message="boom"))
    )
    result = submit(ReplayEngine(script, errors), script)
    expected_type = errors.request_error if expected == "RequestError" else expected
    with pytest.raises(expected_type, match="boom"):
        drain(result)


def test_no_outputs_step_and_trim(errors: Errors) -> None:
    script = Script(
        "t",
        steps=(
            ReplayStep((Delta(0, (1, 2, 3)),)),
            ReplayStep(no_outputs=True),
            ReplayStep(
                (Delta(0, (4,), finish_reason="stop", stop_reason="x", trim=2),), finished=True
            ),
        ),
    )
    seen = drain(submit(ReplayEngine(script, errors), script))
    assert seen == [[(0, [1, 2, 3], 0, None)], [], [(0, [1, 2], 0, "stop")]]


def test_a_cached_prompt_is_also_reported_as_reused_kv_blocks(errors: Errors) -> None:
    # dynamo before 1.5.0 reads cached tokens from request_perf_metrics.kv_cache_metrics.
    cached = dataclasses.replace(scenarios.stream(2, 2), prompt=tuple(range(40)), cached_tokens=33)
    result = submit(ReplayEngine(cached, errors), cached)
    metrics = {id(o.request_perf_metrics) for o in result._all}
    assert len(metrics) == 1
    kv = result._all[0].request_perf_metrics.kv_cache_metrics
    assert (kv.num_reused_blocks, kv.num_missed_blocks) == (2, 1)  # blocks of 32 tokens
    assert result._all[0].request_perf_metrics.timing_metrics is None
    plain = scenarios.stream(2, 2)
    assert all(
        o.request_perf_metrics is None for o in submit(ReplayEngine(plain, errors), plain)._all
    )


def test_rejected_submission_and_single_use(errors: Errors) -> None:
    rejected = Script("r", steps=(), reject="too long")
    with pytest.raises(ValueError, match="too long"):
        submit(ReplayEngine(rejected, errors), rejected)
    script = scenarios.stream(2, 1)
    engine = ReplayEngine(script, errors)
    submit(engine, script)
    with pytest.raises(RuntimeError, match="one request"):
        submit(engine, script)
    assert engine.llm.calls[0]["inputs"] == list(script.prompt)


def test_stand_in_provides_what_dynamo_imports_and_refuses_the_rest(standin: Any) -> None:
    from tensorrt_llm.executor.request import DEFAULT_REQUEST_PRIORITY
    from tensorrt_llm.executor.utils import RequestError
    from tensorrt_llm.llmapi import DisaggregatedParams  # noqa: F401
    from tensorrt_llm.llmapi.llm import SamplingParams
    from tensorrt_llm.sampling_params import GuidedDecodingParams  # noqa: F401
    from tensorrt_llm.scheduling_params import SchedulingParams  # noqa: F401

    assert standin.STANDIN is True
    assert "TEST DOUBLE" in (standin.__doc__ or "")
    assert issubclass(RequestError, Exception)
    assert 0.0 <= DEFAULT_REQUEST_PRIORITY <= 1.0
    replaced = dataclasses.replace(SamplingParams(), n=2, best_of=2)
    assert (replaced.n, replaced.best_of) == (2, 2)
    with pytest.raises(standin.StandInUsed):
        standin.LLM()
