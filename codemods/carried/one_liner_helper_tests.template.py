class _SlicedTokenIds(list):
    """Cumulative `token_ids` that count the ids sliced or indexed, and fail the
    test when iterated or copied with `.copy()`.

    A copy reads the whole history, which grows with the request; the chunk's
    slice reads only the chunk's ids.
    """

    ids_read = 0

    def __getitem__(self, index):
        items = super().__getitem__(index)
        self.ids_read += len(items) if isinstance(index, slice) else 1
        return items

    def __iter__(self):
        raise AssertionError("token_ids copied")

    copy = __iter__


def test_extract_completion_reads_only_the_chunks_token_ids():
    token_ids = _SlicedTokenIds([7, 8, 9])
    output = SimpleNamespace(
        token_ids=token_ids,
        logprobs=[{7: _logprob(-0.7)}, {8: _logprob(-0.8)}, {9: _logprob(-0.9)}],
    )
    log_probs, top_logprobs = extract_from_completion_output(output, 1)
    assert log_probs == [-0.8, -0.9]
    assert [pos[0]["token_id"] for pos in top_logprobs] == [8, 9]
    assert token_ids.ids_read == 2


def test_extract_completion_reads_no_token_ids_when_nothing_is_new():
    token_ids = _SlicedTokenIds([7, 8])
    output = SimpleNamespace(
        token_ids=token_ids, logprobs=[{7: _logprob(-0.7)}, {8: _logprob(-0.8)}]
    )
    assert extract_from_completion_output(output, 2) == (None, None)
    assert token_ids.ids_read == 0
