class _ExplodingTokenIds:
    def __init__(self, length: int = 2) -> None:
        self._length = length

    def __len__(self) -> int:
        return self._length


_LOGPROBS = [{1: _logprob(-1.0)}, {2: _logprob(-2.0)}, {3: _logprob(-3.0)}]
_FALLBACK = {"fallback_to_first_on_missing": True}
_BYTES = {"include_bytes": True, "tokenizer": SimpleNamespace(decode=str)}


@pytest.mark.parametrize(
    ("token_ids", "logprobs", "cursor", "options"),
    [
        pytest.param([1, 2, 3], _LOGPROBS, 1, {}, id="offset-multi-token"),
        pytest.param([1, 2, 3], _LOGPROBS, 3, {}, id="empty-delta"),
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
def test_extract_completion_delta_matches_slicing(token_ids, logprobs, cursor, options):
    """The caller's delta gives the same result, and the history is not copied."""
    output = SimpleNamespace(token_ids=token_ids, logprobs=logprobs)
    expected = extract_from_completion_output(output, cursor, **options)
    output.token_ids = _ExplodingTokenIds(len(token_ids))
    delta = token_ids[cursor:]
    got = extract_from_completion_output(output, cursor, new_token_ids=delta, **options)
    assert got == expected


@pytest.mark.parametrize(("cursor", "delta"), [(1, [2]), (1, [2, 3, 4]), (3, [4])])
def test_extract_completion_rejects_a_delta_that_is_not_the_chunks(cursor, delta):
    output = SimpleNamespace(token_ids=[1, 2, 3], logprobs=_LOGPROBS)
    with pytest.raises(ValueError, match="new_token_ids"):
        extract_from_completion_output(output, cursor, new_token_ids=delta)
