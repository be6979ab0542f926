class _ExplodingTokenIds:
    def __init__(self, token_ids=(0, 0)):
        self._token_ids = token_ids

    def __len__(self) -> int:
        return len(self._token_ids)

    def __getitem__(self, index):
        return self._token_ids[index]


@pytest.mark.parametrize(
    ("token_ids", "cursor", "options"),
    [
        ([1, 2, 3], 1, {}),
        ([1, 2, 3], 3, {}),
        ([1, 4, 3], 1, {}),
        ([1, 4, 3], 1, {"fallback_to_first_on_missing": True}),
    ],
    ids=["offset", "nothing-new", "selected-missing", "selected-missing-fallback"],
)
def test_extract_completion_slices_token_ids_without_copying_them(
    token_ids, cursor, options
):
    """The chunk's ids are sliced out of the cumulative token_ids, never copied whole."""
    logprobs = [{1: _logprob(-1.0)}, {2: _logprob(-2.0)}, {3: _logprob(-3.0)}]
    output = SimpleNamespace(token_ids=token_ids, logprobs=logprobs)
    expected = extract_from_completion_output(output, cursor, **options)
    output.token_ids = _ExplodingTokenIds(token_ids)
    assert extract_from_completion_output(output, cursor, **options) == expected
