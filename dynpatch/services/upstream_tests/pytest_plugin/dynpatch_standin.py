"""pytest plugin for the stand-in tier (``-p dynpatch_standin``): dynamo's gpu_1 handler modules
skip at import without CUDA, so ``torch.cuda.is_available()`` is True only while a test module
is imported; a real ``tensorrt_llm`` is refused. Standard library, pytest and torch only."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any
from unittest import mock

import pytest


def pytest_configure(config: pytest.Config) -> None:
    import tensorrt_llm

    if not getattr(tensorrt_llm, "STANDIN", False):
        raise pytest.UsageError(
            f"the stand-in tier imported the real tensorrt_llm ({tensorrt_llm.__file__}), "
            "not the CPU test double: run the GPU tier instead"
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    if not isinstance(collector, pytest.Module):
        yield
        return
    import torch

    with mock.patch.object(torch.cuda, "is_available", lambda: True):  # for the module's guard
        yield


def pytest_report_header(config: pytest.Config) -> str:
    import tensorrt_llm

    return (
        f"stand-in tier: tensorrt_llm is the CPU test double at {tensorrt_llm.__file__}; "
        "torch.cuda.is_available() answered True only while test modules are imported"
    )
