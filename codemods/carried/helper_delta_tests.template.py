class _SlicedTokenIds(list):
    """Cumulative `token_ids` that count the ids read and fail the test if copied.

    A copy reads the whole history, which grows with the request; given the
    caller's `new_token_ids`, the helper needs only its length.
    """

    ids_read = 0

    def __getitem__(self, index):
        items = super().__getitem__(index)
        self.ids_read += len(items) if isinstance(index, slice) else 1
        return items

    def __iter__(self):
        raise AssertionError("token_ids copied")


def test_extract_completion_reads_the_chunk_from_new_token_ids():
    token_ids = _SlicedTokenIds([7, 8, 9])
    output = SimpleNamespace(
        token_ids=token_ids,
        logprobs=[{7: _logprob(-0.7)}, {8: _logprob(-0.8)}, {9: _logprob(-0.9)}],
    )
    log_probs, top_logprobs = extract_from_completion_output(
        output, 1, new_token_ids=[8, 9]
    )
    assert log_probs == [-0.8, -0.9]
    assert [pos[0]["token_id"] for pos in top_logprobs] == [8, 9]
    assert token_ids.ids_read == 0


def test_extract_completion_rejects_new_token_ids_of_another_length():
    output = SimpleNamespace(
        token_ids=[7, 8, 9],
        logprobs=[{7: _logprob(-0.7)}, {8: _logprob(-0.8)}, {9: _logprob(-0.9)}],
    )
    with pytest.raises(ValueError, match="new_token_ids"):
        extract_from_completion_output(output, 1, new_token_ids=[8])


def test_extract_completion_returns_none_when_new_token_ids_is_empty():
    """An empty `new_token_ids` means nothing new, even past the end of `token_ids`.

    TRT-LLM trims stop words from the cumulative ids, so the cursor can pass them.
    """
    token_ids = _SlicedTokenIds([7, 8])
    output = SimpleNamespace(
        token_ids=token_ids, logprobs=[{7: _logprob(-0.7)}, {8: _logprob(-0.8)}]
    )
    assert extract_from_completion_output(output, 3, new_token_ids=[]) == (None, None)
    assert token_ids.ids_read == 0
