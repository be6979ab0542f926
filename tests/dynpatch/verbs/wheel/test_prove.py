"""The wheel's proof: which of dynamo's tests each tier runs from site-packages, and the GPU
tier only where NVIDIA's tensorrt_llm and a CUDA device are (faked here: no GPU)."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.pin import load_pin
from dynpatch.verbs.wheel import prove
from tests.dynpatch.services.upstream_tests.test_tiers import fake_site
from tests.fixtures.synthetic import REPO

WHEEL = "ai_dynamo-1.6.1+dynpatch.abc-py3-none-any.whl"
PYTHON = Path(sys.executable)
PATCHED = "def extract_from_completion_output(output, n, *, new_token_ids=None): ..."


def proof(tmp: Path, into: Path | None, tier: str) -> list[str]:
    """The summary line of each test run of the proof of the wheel in ``tmp``."""
    said = prove.run_proof(load_pin(REPO.pin), tmp / WHEEL, tmp, into, tier, tmp)
    return [line.rsplit(": ", 1)[1] for line in said if "from site-packages: " in line]


@pytest.fixture
def ran(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Installs and test runs recorded instead of made; the helper found patched."""
    module = tmp_path / "site" / "dynamo/common/backend/logprobs.py"
    module.parent.mkdir(parents=True)
    module.write_text(PATCHED)
    with zipfile.ZipFile(tmp_path / WHEEL, "w") as wheel:  # the helper the wheel holds
        wheel.writestr("dynamo/common/backend/logprobs.py", PATCHED)
    calls: list[tuple[str, str]] = []

    def install(python: Path, args: list[str]) -> None:
        calls.append(("install", f"{python} {' '.join(args)}"))

    monkeypatch.setattr(prove.pypi, "pip_install_into", install)
    monkeypatch.setattr(
        prove, "installed_helper", lambda python: (module.parents[3], module, "1.6.1+dynpatch.abc")
    )
    monkeypatch.setattr(
        prove,
        "run_tests",
        lambda python, purelib, work, test, marker, junit: (
            calls.append((test, marker)) or "1 passed"
        ),
    )
    return calls


def test_the_gpu_tier_needs_an_interpreter_with_tensorrt_llm(tmp_path: Path, ran) -> None:
    with pytest.raises(ToolkitError, match="needs --install-into PYTHON"):
        proof(tmp_path, None, "gpu")
    with pytest.raises(ToolkitError, match="cannot run: tensorrt_llm is not importable"):
        proof(tmp_path, PYTHON, "gpu")
    assert ran == []  # nothing installed into it


def test_the_gpu_tier_installs_into_the_container_python_and_runs_both(
    tmp_path: Path, ran, monkeypatch: pytest.MonkeyPatch
) -> None:
    gpu_site = fake_site(tmp_path / "gpu-site", "1.1.0")
    monkeypatch.setenv("PYTHONPATH", str(gpu_site))
    assert proof(tmp_path, PYTHON, "gpu") == ["1 passed", "1 passed"]
    assert ran == [
        ("install", f"{PYTHON} --no-deps {tmp_path / WHEEL}"),
        ("dynamo/common/backend/tests/test_logprobs.py", "pre_merge and gpu_0"),
        ("dynamo/trtllm/tests", "pre_merge and trtllm and (gpu_0 or gpu_1)"),
    ]


def test_the_cpu_tier_runs_the_logprob_tests_and_refuses_a_stock_ai_dynamo(
    tmp_path: Path, ran, monkeypatch
) -> None:
    assert proof(tmp_path, PYTHON, "cpu") == ["1 passed"]
    assert ran[1:] == [("dynamo/common/backend/tests/test_logprobs.py", "pre_merge and gpu_0")]
    module = tmp_path / "site" / "dynamo/common/backend/logprobs.py"
    module.write_text(PATCHED.replace("new_token_ids=None", "x=None"))  # not the wheel's
    with pytest.raises(ToolkitError, match=r"logprobs comes from .*: not the patched wheel"):
        proof(tmp_path, PYTHON, "cpu")
    monkeypatch.setattr(prove, "installed_helper", lambda python: (tmp_path, tmp_path, "1.6.1"))
    with pytest.raises(ToolkitError, match=r"installed ai-dynamo is 1\.6\.1, not the patched"):
        proof(tmp_path, PYTHON, "cpu")
