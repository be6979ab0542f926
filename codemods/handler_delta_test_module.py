"""Carry a GPU regression test of the response loop as a new dynamo test module.

``HandlerDeltaTestModule`` turns an empty ``trtllm/tests/test_trtllm_logprob_delta.py``
into the gpu_1 test in ``carried/handler_delta_test_module.template.py``: the TRT-LLM
response loop passes its delta token ids on to the shared helper. Importing
HandlerBase needs TensorRT-LLM and a GPU, so it runs only in dynamo's TRT-LLM container.

A codemod only transforms files that exist: to run this one with
``python -m libcst.tool codemod``, create the file empty first (``touch``, 0 bytes). The
toolkit's series runner hands it an empty module when the file does not exist. Any
other content, even blank lines or a comment, is refused unless it is these tests.
"""

from __future__ import annotations

import libcst as cst

from codemods import shape
from codemods.outcome import AlreadyApplied, Drifted, Target, TargetedCommand

PATH = "components/src/dynamo/trtllm/tests/test_trtllm_logprob_delta.py"

TARGET = Target(
    path=PATH,
    qualname="(new module)",
    expected="no such file yet (the series creates it)",
)

MODULE = shape.carried("handler_delta_test_module.template.py")


class HandlerDeltaTestModule(TargetedCommand):
    DESCRIPTION: str = (
        "test_trtllm_logprob_delta.py (new, gpu_1): the TRT-LLM response loop passes "
        "its delta token ids to the shared logprob helper."
    )
    TARGET = TARGET

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        wanted = cst.parse_module(MODULE)
        if not tree.body and not tree.header:  # empty, or absent in the series: create it
            return wanted
        if shape.same_code(tree, wanted.code):
            raise AlreadyApplied(f"{PATH} already exists with these tests")
        raise Drifted(TARGET, "a file of that name with other content")
