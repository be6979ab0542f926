"""The variants: the mutant (the patched helper with the history copy planted back) and
the alternative (the baseline helper without its copy), each that edit and nothing else."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from dynpatch.designs import DESIGNS
from dynpatch.errors import ToolkitError
from dynpatch.services import variants
from tests.fixtures.snippets import HANDLER, HELPER, HELPER_PATCHED
from tests.fixtures.synthetic import DELTA, write_files

ONE_LINER = DESIGNS["one-liner"]

LOGPROBS = "dynamo/common/backend/logprobs.py"
OTHER = "dynamo/trtllm/request_handlers/handler_base.py"


class History(list):
    """Cumulative token ids that count how often they are copied whole."""

    copies = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        History.copies += 1
        return super().__iter__()


def _helper(source: str):  # type: ignore[no-untyped-def]
    namespace: dict = {}
    exec(compile(source, "logprobs.py", "exec"), namespace)
    return namespace["extract_from_completion_output"]


def _output() -> SimpleNamespace:
    logprobs = [{t: SimpleNamespace(logprob=-t, rank=1, decoded_token=str(t))} for t in (7, 8, 9)]
    return SimpleNamespace(token_ids=History([7, 8, 9]), logprobs=logprobs)


def test_the_mutant_copies_the_history_again_and_answers_the_same() -> None:
    planted = variants.plant(HELPER_PATCHED, DELTA)
    assert planted.count(variants.COPY) == HELPER_PATCHED.count(variants.COPY) + 1
    output = _output()
    History.copies = 0
    patched = _helper(HELPER_PATCHED)(output, 2, new_token_ids=[9])
    assert History.copies == 0  # the fix: the delta path never copies the history
    assert _helper(planted)(output, 2, new_token_ids=[9]) == patched and patched[0] == [-9]
    assert History.copies == 1  # the mutant: one whole copy per call, as before the fix
    with pytest.raises(ToolkitError, match="found 0"):
        variants.plant("def extract_from_completion_output(output):\n    return None\n", DELTA)
    anchor = variants.ANCHORS[DELTA.name]
    with pytest.raises(ToolkitError, match="found 2"):
        variants.plant(
            HELPER_PATCHED + "\n\ndef again(new_token_ids):\n" + anchor + "        pass\n", DELTA
        )


def test_the_one_liner_s_mutant_copies_the_history_again_and_answers_the_same() -> None:
    one_liner = variants.drop_copy(HELPER)  # the one-liner's helper is the alternative's
    planted = variants.plant(one_liner, ONE_LINER)
    output = _output()
    History.copies = 0
    assert _helper(one_liner)(output, 1) == _helper(planted)(output, 1)
    assert History.copies == 1  # only the mutant's


def test_each_design_s_alternative_is_the_other_design(tmp_path: Path) -> None:
    files = {LOGPROBS: HELPER, OTHER: HANDLER}
    src = write_files(tmp_path / "baseline", files)
    dest = variants.build(src, tmp_path / "one-liner", variants.alternative(DELTA).edit)
    assert (dest / LOGPROBS).read_text() == variants.drop_copy(HELPER)
    assert (dest / OTHER).read_text() == HANDLER
    dest = variants.build(src, tmp_path / "delta", variants.alternative(ONE_LINER).edit)
    assert (dest / LOGPROBS).read_text() == HELPER_PATCHED
    assert 'new_token_ids=out["token_ids"]' in (dest / OTHER).read_text()
    assert variants.mutant(DELTA).what.startswith("the patched tree with `token_ids = list(")


def test_build_copies_the_tree_and_changes_only_the_helper(tmp_path: Path) -> None:
    src = write_files(tmp_path / "patched", {LOGPROBS: HELPER_PATCHED, OTHER: "X = 1\n"})
    dest = variants.build(src, tmp_path / "mutant", variants.mutant(DELTA).edit)
    assert (dest / LOGPROBS).read_text() == variants.plant(HELPER_PATCHED, DELTA)
    assert (dest / OTHER).read_text() == "X = 1\n"
    assert (src / LOGPROBS).read_text() == HELPER_PATCHED  # the patched tree is untouched


def test_the_alternative_copies_only_the_delta_and_answers_as_the_baseline() -> None:
    dropped = variants.drop_copy(HELPER)
    assert dropped.count(variants.ALTERNATIVE) == 1
    assert dropped.count(variants.COPY) == HELPER.count(variants.COPY) - 1  # the helper's only
    output = _output()
    History.copies = 0
    dropped_says = _helper(dropped)(output, 1)
    assert dropped_says == _helper(HELPER)(output, 1) and dropped_says[0] == [-8, -9]
    assert History.copies == 1  # the baseline's copy; the alternative slices only the delta
    with pytest.raises(ToolkitError, match="found 0"):
        variants.drop_copy(dropped)
