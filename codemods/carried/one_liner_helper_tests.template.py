class _SlicedTokenIds(list):
    """Cumulative `token_ids` that can be measured and sliced, but not copied."""

    def __iter__(self):
        raise AssertionError("token_ids copied")


_LOGPROBS = [{1: _logprob(-1.0)}, {2: _logprob(-2.0)}, {3: _logprob(-3.0)}]
_FALLBACK = {"fallback_to_first_on_missing": True}
_BYTES = {"include_bytes": True, "tokenizer": SimpleNamespace(decode=str)}


@pytest.mark.parametrize(
    ("token_ids", "logprobs", "cursor", "options"),
    [
        pytest.param([1, 2, 3], _LOGPROBS, 1, {}, id="offset-multi-token"),
        pytest.param([1, 2, 3], _LOGPROBS, 3, {}, id="nothing-new"),
        pytest.param([1, 2, 3], _LOGPROBS, 5, {}, id="stop-words-trimmed"),
        pytest.param([1, 2], [-1.0, -2.0], 0, {}, id="flat-floats"),
        pytest.param([1, 2], [None, {2: _logprob(-2.0)}], 0, {}, id="none-position"),
        pytest.param([1, 4], _LOGPROBS, 0, {}, id="selected-missing"),
        pytest.param([1, 4], _LOGPROBS, 0, _FALLBACK, id="selected-missing-fallback"),
        pytest.param([1, 2], _LOGPROBS, 0, _BYTES, id="bytes-tokenizer"),
        pytest.param([1, 2], _LOGPROBS, 1, {}, id="logprobs-ahead"),
        pytest.param([1, 2, 3], _LOGPROBS[:2], 1, {}, id="logprobs-lagging"),
    ],
)
def test_extract_completion_slices_token_ids_without_copying_them(
    token_ids, logprobs, cursor, options
):
    """Every path gives the chunk it gave from a list, and none copies the history."""
    output = SimpleNamespace(token_ids=token_ids, logprobs=logprobs)
    expected = extract_from_completion_output(output, cursor, **options)
    output.token_ids = _SlicedTokenIds(token_ids)
    assert extract_from_completion_output(output, cursor, **options) == expected
