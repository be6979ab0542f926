"""HandlerDeltaTestModule: an empty file at its path becomes the carried GPU test."""

from __future__ import annotations

import ast

from codemods.handler_delta_test_module import MODULE, HandlerDeltaTestModule
from codemods.outcome import AlreadyApplied
from tests.codemods import support


class TestHandlerDeltaTestModule(support.TargetedCodemodTest):
    TRANSFORM = HandlerDeltaTestModule

    # --- applies ------------------------------------------------------------------

    def test_creates_the_gpu_test_module_from_an_empty_file(self) -> None:
        # Not assertCodemod: its fixture normalising turns "" into "\n", a non-empty file.
        new = self.run_on("")
        self.assertEqual(new, MODULE)
        self.assertTrue(
            new.startswith(
                "# SPDX-FileCopyrightText: Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. "
                "All rights reserved.\n# SPDX-License-Identifier: Apache-2.0\n"
            )
        )
        for mark in ("gpu_1", "trtllm", "pre_merge"):
            self.assertIn(f"pytest.mark.{mark}", new)
        self.assertNotIn("pytest.mark.gpu_0", new)
        names = [n.name for n in ast.parse(new).body if isinstance(n, ast.AsyncFunctionDef)]
        self.assertEqual(names, ["test_response_loop_passes_its_delta_to_the_logprob_helper"])

    def test_applies_in_the_wheel_layout(self) -> None:
        self.assertEqual(self.run_on("", filename=self.in_wheel()), MODULE)

    # --- skips --------------------------------------------------------------------

    def test_other_files_are_skipped(self) -> None:
        # Above all other empty files, such as every package's __init__.py.
        self.assertNotTarget("")
        self.assertNotTarget(
            "", filename=f"{support.CLONE}/components/src/dynamo/trtllm/tests/__init__.py"
        )

    def test_existing_module_is_already_applied(self) -> None:
        self.assertSkips(MODULE, AlreadyApplied, f"{self.TARGET.path} already exists")

    def test_already_applied_survives_reformatting(self) -> None:
        squeezed = MODULE.replace("\n\n\n@dataclass", "\n\n@dataclass")
        self.assertNotEqual(squeezed, MODULE)
        self.assertSkips(squeezed, AlreadyApplied, "already exists with these tests")

    # --- refused: a file of that name that is neither empty nor these tests --------

    def test_other_content_is_drift(self) -> None:
        self.assertDrifts("def test_other():\n    pass\n", "a file of that name with other content")

    def test_a_file_that_is_only_a_comment_is_drift(self) -> None:
        self.assertDrifts("# placeholder\n", "with other content")

    def test_blank_lines_are_not_empty(self) -> None:
        self.assertDrifts("\n", "with other content")
