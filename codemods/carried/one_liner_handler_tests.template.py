def test_trtllm_handler_matches_shared():
    direct = extract_from_completion_output(
        output, 1, fallback_to_first_on_missing=True, include_bytes=False
    )
    output.token_ids = _CumulativeTokenIds(output.token_ids)  # sliced, not copied
    assert HandlerBase._extract_logprobs(output, 1) == direct
