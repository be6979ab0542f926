"""The index's list of a package's wheels (PyPI's JSON simple API, answered at ``urlopen``):
what is kept, what is asked for, and every fault as one line without credentials."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.io import pypi

WHEEL, OLD, DEV = (f"ai_dynamo-{v}-py3-none-any.whl" for v in ("1.6.1", "1.6.0", "1.6.0.dev1"))
LISTING = {
    "files": [
        {"filename": WHEEL, "hashes": {"sha256": "AB" * 32}},
        {"filename": "ai_dynamo-1.6.1.tar.gz", "hashes": {"sha256": "cd" * 32}},
        {"filename": DEV, "hashes": {"sha256": "ef" * 32}, "yanked": "broken build"},
        {"filename": OLD, "hashes": {"sha256": "01" * 32}, "yanked": False},
    ],
}


def answer(
    monkeypatch: pytest.MonkeyPatch, body: bytes | Exception
) -> list[urllib.request.Request]:
    """``urlopen`` answers ``body`` (or raises it); the requests it got are returned."""
    asked: list[urllib.request.Request] = []

    def urlopen(request: urllib.request.Request, timeout: float) -> io.BytesIO:
        asked.append(request)
        if isinstance(body, Exception):
            raise body
        return io.BytesIO(body)

    monkeypatch.setattr(pypi.urllib.request, "urlopen", urlopen)
    return asked


def test_the_wheels_not_yanked_with_their_sha256_from_the_index_or_pypi(monkeypatch) -> None:
    monkeypatch.setenv("PIP_INDEX_URL", "http://index.invalid/simple")
    asked = answer(monkeypatch, json.dumps(LISTING).encode())
    assert pypi.list_wheels("ai-dynamo") == {WHEEL: "ab" * 32, OLD: "01" * 32}
    assert asked[0].full_url == "http://index.invalid/simple/ai-dynamo/"
    assert asked[0].get_header("Accept") == "application/vnd.pypi.simple.v1+json"
    monkeypatch.delenv("PIP_INDEX_URL")
    pypi.list_wheels("ai-dynamo")
    assert asked[1].full_url == "https://pypi.org/simple/ai-dynamo/"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"<html><a>ai_dynamo-1.6.1.whl</a></html>", "the answer is not the index's JSON listing"),
        (json.dumps({"meta": {}}).encode(), "the listing lacks 'files'"),
        (urllib.error.URLError("Connection refused"), "Connection refused"),
    ],
)
def test_every_fault_is_one_line_without_credentials(monkeypatch, body, says: str) -> None:
    monkeypatch.setenv("PIP_INDEX_URL", "http://someone:s3cret@index.invalid/simple/")
    answer(monkeypatch, body)
    with pytest.raises(ToolkitError) as caught:
        pypi.list_wheels("ai-dynamo")
    expected = f"cannot list the files of ai-dynamo on http://index.invalid/simple/: {says}"
    assert str(caught.value) == expected
