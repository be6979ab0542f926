"""Canonical serialisation and first-divergence reporting of replayed streams."""

from __future__ import annotations

import json

from dynpatch.replay import wire


def chunk(value: object) -> str:
    return wire.record("chunk", value)


def test_canonical_keeps_what_json_would_lose() -> None:
    values = [1, 1.0, True, "1", [1], (1,), {1: "a"}, {"1": "a"}, {"__tuple__": [1]}]
    assert len({wire.canonical(v) for v in values}) == len(values)
    assert wire.canonical({"b": 1, "a": 2}) != wire.canonical({"a": 2, "b": 1})
    assert wire.canonical(float("nan")) == '{"__float__":"nan"}'
    assert json.loads(wire.canonical(object()))["__object__"] == "object"


def test_divergence_names_chunk_index_field_and_both_values() -> None:
    base = [
        wire.record("submit", {}),
        chunk({"token_ids": [5], "index": 0}),
        chunk({"token_ids": [6], "index": 0, "top_logprobs": [[{"logprob": -0.5}]]}),
    ]
    patched = [
        *base[:2],
        chunk({"token_ids": [6], "index": 0, "top_logprobs": [[{"logprob": -0.25}]]}),
    ]
    d = wire.first_divergence("four-choices", base, patched)
    assert d is not None
    assert (d.scenario, d.index, d.chunk, d.kind) == ("four-choices", 2, 1, "chunk")
    assert d.field == "top_logprobs[0][0].logprob"
    assert (d.baseline, d.patched) == ("-0.5", "-0.25")
    assert "chunk 1" in d.describe() and "-0.25" in d.describe()
    assert wire.first_divergence("s", base, list(base)) is None


def test_divergence_on_a_missing_key_an_extra_item_key_order_a_type_and_an_early_end() -> None:
    cases = [
        ({"a": 1, "b": 2}, {"a": 1}, "b", "2", "<absent>"),
        ({"ids": [1, 2]}, {"ids": [1, 2, 3]}, "ids[2]", "<absent>", "3"),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, "<key order>", '["a","b"]', '["b","a"]'),
        ({"lp": -1}, {"lp": -1.0}, "lp", "-1", "-1.0"),
    ]
    for a, b, field, baseline, patched in cases:
        d = wire.first_divergence("s", [chunk(a)], [chunk(b)])
        assert d is not None and (d.field, d.baseline, d.patched) == (field, baseline, patched)
    base = [chunk({"a": 1}), wire.record("worker_exit", {"engine": "x"})]
    d = wire.first_divergence("fatal", base, base[:1])
    assert d is not None and (d.index, d.chunk, d.kind) == (1, None, "worker_exit")
    assert d.patched == "<absent>" and "worker_exit" in d.baseline
