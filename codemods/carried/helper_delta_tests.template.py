def test_extract_completion_reads_the_chunk_from_new_token_ids():
    output = SimpleNamespace(
        token_ids=_ExplodingTokenIds(),  # two ids, none of which may be read
        logprobs=[{7: _logprob(-0.7)}, {8: _logprob(-0.8)}],
    )
    log_probs, top_logprobs = extract_from_completion_output(
        output, 0, new_token_ids=[7, 8]
    )
    assert log_probs == [-0.7, -0.8]
    assert [pos[0]["token_id"] for pos in top_logprobs] == [7, 8]


def test_extract_completion_rejects_new_token_ids_of_another_length():
    output = SimpleNamespace(
        token_ids=[7, 8, 9],
        logprobs=[{7: _logprob(-0.7)}, {8: _logprob(-0.8)}, {9: _logprob(-0.9)}],
    )
    with pytest.raises(ValueError, match="new_token_ids"):
        extract_from_completion_output(output, 1, new_token_ids=[8])


def test_extract_completion_returns_none_when_new_token_ids_is_empty():
    """TRT-LLM trims stop words from the cumulative ids: the cursor can pass them."""
    output = SimpleNamespace(
        token_ids=_ExplodingTokenIds(),
        logprobs=[{7: _logprob(-0.7)}, {8: _logprob(-0.8)}],
    )
    assert extract_from_completion_output(output, 3, new_token_ids=[]) == (None, None)
