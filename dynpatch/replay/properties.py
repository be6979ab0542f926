"""Property streams: hypothesis-drawn TRT-LLM scripts aimed where a delta-based helper could err."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from dynpatch.replay.script import RAISE_KINDS, Delta, Position, ReplayStep, Script

# Narrow ids make duplicates in a position likely; wide ones lie outside the small-int cache.
_TOKEN = st.one_of(st.integers(1000, 1007), st.integers(1000, 150_000))
_LOGPROB = st.floats(-30.0, 0.0, allow_nan=False, allow_infinity=False)
_RANK = st.one_of(st.none(), st.integers(1, 20))


@st.composite
def _position(draw: Any, selected: int | None, k: int, flat: bool) -> Position:
    # Dicts or (corner case) floats for a whole stream: a float amid dicts crashes both trees.
    shape = draw(
        st.sampled_from(["float"] if flat else ["dict"] * 6 + ["missing", "empty", "none"])
    )
    if shape == "float":
        return draw(_LOGPROB)
    if shape == "none":
        return None
    if shape == "empty":
        return ()
    others = draw(st.lists(_TOKEN, min_size=0 if shape == "dict" else 1, max_size=max(k, 1)))
    ids = ([selected] if shape == "dict" and selected is not None else []) + others
    return tuple((t, draw(_LOGPROB), draw(_RANK)) for t in ids[: max(k, 1) + 1])


@st.composite
def scripts(draw: Any, name: str = "property") -> Script:
    n = draw(st.integers(1, 4))
    k = draw(st.sampled_from([None, 0, 1, 2, 5]))
    engine_logprobs = k is not None and draw(st.booleans() | st.just(True))
    flat = engine_logprobs and draw(st.integers(0, 9)) == 0
    prompt = tuple(draw(st.lists(_TOKEN, min_size=1, max_size=5)))
    tokens: list[list[int]] = [[] for _ in range(n)]
    logprob_len = [0] * n
    steps: list[ReplayStep] = []
    n_steps = draw(st.integers(1, 24))
    for s in range(n_steps):
        last = s == n_steps - 1
        kind = draw(st.sampled_from(["grow"] * 23 + ["no_outputs", "raise"]))
        if kind == "raise":
            steps.append(ReplayStep(raise_kind=draw(st.sampled_from(RAISE_KINDS)), message=f"e{s}"))
            break
        if kind == "no_outputs" and not last:
            steps.append(ReplayStep(no_outputs=True))
            continue
        growing = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
        if last:
            growing = sorted(set(growing) | set(range(n)))
        deltas = []
        for c in growing:
            new = draw(st.lists(_TOKEN, max_size=4))
            cumulative = tokens[c] + new
            lp: tuple[Position, ...] = ()
            if engine_logprobs:
                count = draw(
                    st.sampled_from([len(new)] * 4 + [max(len(new) - 1, 0), len(new) + 1, 0])
                )
                at = range(logprob_len[c], logprob_len[c] + count)
                selected = [cumulative[i] if i < len(cumulative) else None for i in at]
                lp = tuple(draw(_position(t, k or 1, flat)) for t in selected)
                logprob_len[c] += count
            finish = draw(st.sampled_from([None, "length", "stop", "cancelled"])) if last else None
            stop = draw(st.one_of(st.none(), st.text(max_size=3), _TOKEN)) if finish else None
            trim = min(draw(st.integers(0, 2)), len(cumulative)) if finish == "stop" else 0
            tokens[c] = cumulative[: len(cumulative) - trim]
            deltas.append(Delta(c, tuple(new), lp, finish, stop, trim))
        steps.append(ReplayStep(deltas=tuple(deltas), finished=last))
    return Script(
        name=name,
        steps=tuple(steps),
        n=n,
        prompt=prompt,
        max_tokens=draw(st.one_of(st.none(), st.integers(1, 64))),
        logprobs=k,
        prompt_logprobs=draw(st.one_of(st.none(), st.integers(0, 3))),
        # TRT-LLM's prompt logprobs: nothing for the first token, then one dict a token.
        engine_prompt_logprobs=draw(
            st.one_of(st.none(), st.just((None, *(((t, -1.5, 1),) for t in prompt[1:]))))
        ),
        cached_tokens=draw(st.one_of(st.none(), st.integers(0, 8))),
        reject=draw(st.sampled_from([None] * 19 + ["rejected"])),
        suspend=draw(st.booleans()),
    )


def draw_scripts(budget: int, seed: int) -> list[Script]:
    """``budget`` scripts drawn by hypothesis from ``seed`` (the same list for a seed)."""
    drawn: list[Script] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=budget,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(scripts())
    def collect(script: Script) -> None:
        drawn.append(script)

    collect()
    return [dataclasses.replace(s, name=f"property-{i:03d}") for i, s in enumerate(drawn)]
