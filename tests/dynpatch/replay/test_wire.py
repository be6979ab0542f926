"""Canonical serialisation and first-divergence reporting of replayed streams."""

from __future__ import annotations

import json

from dynpatch.replay import wire


def chunk(value: object) -> str:
    return wire.record("chunk", value)


def test_canonical_keeps_type_distinctions_json_would_lose() -> None:
    forms = {
        wire.canonical(1),
        wire.canonical(1.0),
        wire.canonical(True),
        wire.canonical("1"),
        wire.canonical([1]),
        wire.canonical((1,)),
        wire.canonical({1: "a"}),
        wire.canonical({"1": "a"}),
    }
    assert len(forms) == 8


def test_canonical_keeps_key_order_and_tags_odd_values() -> None:
    assert wire.canonical({"b": 1, "a": 2}) != wire.canonical({"a": 2, "b": 1})
    assert wire.canonical(float("nan")) == '{"__float__":"nan"}'
    assert json.loads(wire.canonical(object()))["__object__"] == "object"
    # A real dict using a tag as key cannot be mistaken for a tagged value.
    assert wire.canonical({"__tuple__": [1]}) != wire.canonical((1,))


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
    d = wire.first_divergence("s", [chunk({"a": 1, "b": 2})], [chunk({"a": 1})])
    assert d is not None and d.field == "b" and d.patched == "<absent>"
    d = wire.first_divergence("s", [chunk({"ids": [1, 2]})], [chunk({"ids": [1, 2, 3]})])
    assert d is not None and d.field == "ids[2]" and d.baseline == "<absent>" and d.patched == "3"
    d = wire.first_divergence("s", [chunk({"a": 1, "b": 2})], [chunk({"b": 2, "a": 1})])
    assert d is not None and d.field == "<key order>"
    d = wire.first_divergence("s", [chunk({"lp": -1})], [chunk({"lp": -1.0})])
    assert d is not None and d.field == "lp"
    base = [chunk({"a": 1}), wire.record("worker_exit", {"engine": "x"})]
    d = wire.first_divergence("fatal", base, base[:1])
    assert d is not None
    assert d.index == 1 and d.chunk is None and d.patched == "<absent>"
    assert "worker_exit" in d.baseline
