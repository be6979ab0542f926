"""TEST DOUBLE: ``tensorrt_llm.scheduling_params`` (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SchedulingParams:
    attention_dp_rank: int | None = None
    attention_dp_relax: bool | None = None
