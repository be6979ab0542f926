class _UntouchableTokenIds:
    """Stands in for the cumulative `token_ids` when the caller passes its delta.

    TRT-LLM's `token_ids` holds every token the request has produced so far, so
    reading it costs more with every chunk. Given `new_token_ids`, the helper has
    all it needs: copying (iterating), measuring or slicing the history raises.
    """

    def __iter__(self):
        raise AssertionError("token_ids iterated though new_token_ids was given")

    def __len__(self):
        raise AssertionError("len(token_ids) taken though new_token_ids was given")

    def __getitem__(self, index):
        raise AssertionError("token_ids sliced though new_token_ids was given")


@pytest.mark.parametrize(
    ("num_output_tokens_so_far", "new_token_ids"),
    [(0, [7]), (1, [8, 9]), (3, [10])],
    ids=["first-token", "multi-token", "last-token"],
)
def test_extract_completion_with_delta_never_reads_token_ids(
    num_output_tokens_so_far, new_token_ids
):
    output = SimpleNamespace(
        token_ids=_UntouchableTokenIds(),
        logprobs=[
            {7: _logprob(-0.7, decoded="a")},
            {8: _logprob(-0.8, decoded="b")},
            {9: _logprob(-0.9, decoded="c")},
            {10: _logprob(-1.0, decoded="d")},
        ],
    )
    log_probs, top_logprobs = extract_from_completion_output(
        output, num_output_tokens_so_far, new_token_ids=new_token_ids
    )
    assert log_probs == [-t / 10 for t in new_token_ids]
    assert [pos[0]["token_id"] for pos in top_logprobs] == new_token_ids


def test_extract_completion_delta_window_follows_the_stream():
    """Replay a TRT-LLM stream whose cumulative ids grow by 1, 3, then 2 tokens.

    Each chunk's logprobs are those of exactly the chunk's new tokens, at the
    cursor, and equal what the helper returns when it slices the history itself.
    """
    token_ids = [11, 12, 13, 14, 15, 16]
    logprobs = [{t: _logprob(-t / 100, decoded=f"<{t}>")} for t in token_ids]
    cursor = 0
    for end in (1, 4, 6):
        output = SimpleNamespace(token_ids=token_ids[:end], logprobs=logprobs[:end])
        delta = output.token_ids[cursor:]

        log_probs, top_logprobs = extract_from_completion_output(
            output, cursor, new_token_ids=delta
        )

        assert log_probs == [-t / 100 for t in delta]
        assert [pos[0]["token_id"] for pos in top_logprobs] == delta
        assert (log_probs, top_logprobs) == extract_from_completion_output(
            output, cursor
        )
        cursor = end


def test_extract_completion_delta_cuts_the_logprob_window_to_its_length():
    # The window starts at the cursor in `output.logprobs` and is as long as the
    # delta, even when the engine already holds logprobs for later positions.
    output = SimpleNamespace(
        token_ids=_UntouchableTokenIds(),
        logprobs=[
            {7: _logprob(-0.7)},
            {8: _logprob(-0.8)},
            {9: _logprob(-0.9)},
            {10: _logprob(-1.0)},
        ],
    )
    log_probs, _ = extract_from_completion_output(output, 1, new_token_ids=[8, 9])
    assert log_probs == [-0.8, -0.9]


def test_extract_completion_delta_keeps_fallback_bytes_and_tokenizer():
    class FakeTok:
        def decode(self, ids):
            return f"<{ids[0]}>"

    logprobs = [
        {5: _logprob(-0.5, decoded="x")},
        {99: _logprob(-0.1, rank=1, decoded=None), 6: _logprob(-2.0, rank=2)},
    ]
    options = {
        "tokenizer": FakeTok(),
        "fallback_to_first_on_missing": True,
        "include_bytes": True,
    }
    with_delta = extract_from_completion_output(
        SimpleNamespace(token_ids=_UntouchableTokenIds(), logprobs=logprobs),
        1,
        new_token_ids=[7],
        **options,
    )
    without = extract_from_completion_output(
        SimpleNamespace(token_ids=[5, 7], logprobs=logprobs), 1, **options
    )
    assert with_delta == without
    assert with_delta[0] == [-0.1]
    assert with_delta[1][0][0]["bytes"] == list(b"<99>")


@pytest.mark.parametrize(
    ("token_ids", "logprobs", "cursor", "options", "expected"),
    [
        ([7], [], 0, {}, (None, None)),
        ([7], None, 0, {}, (None, None)),
        ([7, 8], [{7: _logprob(-0.7)}, {8: _logprob(-0.8)}], 2, {}, (None, None)),
        ([7, 8], [{7: _logprob(-0.7)}, {8: _logprob(-0.8)}], 5, {}, (None, None)),
        ([7, 8], [-0.7, -0.8], 0, {}, ([-0.7, -0.8], None)),
        ([7, 8], [None, {8: _logprob(-0.8)}], 0, {}, (None, None)),
        ([7], [{99: _logprob(-1.0)}], 0, {}, (None, None)),
        (
            [7],
            [{}],
            0,
            {"fallback_to_first_on_missing": True},
            (None, None),
        ),
    ],
    ids=[
        "logprobs-empty",
        "logprobs-none",
        "nothing-new",
        "cursor-past-end",
        "flat-floats",
        "none-position",
        "selected-missing",
        "selected-missing-nothing-to-fall-back-to",
    ],
)
def test_extract_completion_bails_out_the_same_with_delta(
    token_ids, logprobs, cursor, options, expected
):
    """Each early return gives what it gave before, and reads no history."""
    without = extract_from_completion_output(
        SimpleNamespace(token_ids=token_ids, logprobs=logprobs), cursor, **options
    )
    with_delta = extract_from_completion_output(
        SimpleNamespace(token_ids=_UntouchableTokenIds(), logprobs=logprobs),
        cursor,
        new_token_ids=token_ids[cursor:],
        **options,
    )
    assert without == expected
    assert with_delta == expected
