"""TEST DOUBLE: ``tensorrt_llm.llmapi.disagg_utils`` (see the package docstring)."""

from tensorrt_llm import StandInUsed


def get_global_disagg_request_id(machine_id: int) -> int:
    raise StandInUsed("disaggregated request ids: the replay serves aggregated only")
