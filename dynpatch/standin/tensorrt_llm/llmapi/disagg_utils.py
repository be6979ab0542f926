"""TEST DOUBLE: ``tensorrt_llm.llmapi.disagg_utils`` (see the package docstring)."""

from __future__ import annotations

from tensorrt_llm import StandInUsed


def get_global_disagg_request_id(machine_id: int) -> int:
    """Only disaggregated (prefill) serving asks for this; the replay is aggregated."""
    raise StandInUsed("disaggregated request ids are not available in the CPU stand-in")
