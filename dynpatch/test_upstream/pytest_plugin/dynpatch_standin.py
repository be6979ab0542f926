"""pytest plugin for the stand-in tier: ``-p dynpatch_standin``.

dynamo's gpu_1 handler test modules skip at import when ``torch.cuda.is_available()``
is False, only because they import ``tensorrt_llm``; their tests build handlers over a
``MagicMock`` engine. With the toolkit's labelled CPU test double of ``tensorrt_llm`` on
``PYTHONPATH``, this plugin answers ``torch.cuda.is_available()`` with True only while a
test module is imported, so a test that asks for CUDA itself still hears "no"; and it
refuses a real ``tensorrt_llm``: this tier is never the GPU tier. Standard library and
pytest only (plus torch, which the tier's interpreter has).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

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

    real = torch.cuda.is_available
    torch.cuda.is_available = lambda: True  # for the module-level guard only
    try:
        yield
    finally:
        torch.cuda.is_available = real


def pytest_report_header(config: pytest.Config) -> str:
    import tensorrt_llm

    return (
        f"stand-in tier: tensorrt_llm is the CPU test double at {tensorrt_llm.__file__}; "
        "torch.cuda.is_available() answered True only while test modules are imported"
    )
