"""The index's list of a package's wheels, from a local HTTP server standing for PyPI's
JSON simple API: what is kept, what the request asks for, and every fault as one line."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.io import pypi

LISTING = {
    "meta": {"api-version": "1.1"},
    "name": "ai-dynamo",
    "files": [
        {"filename": "ai_dynamo-1.6.1-py3-none-any.whl", "hashes": {"sha256": "AB" * 32}},
        {"filename": "ai_dynamo-1.6.1.tar.gz", "hashes": {"sha256": "cd" * 32}},
        {
            "filename": "ai_dynamo-1.6.0.dev1-py3-none-any.whl",
            "hashes": {"sha256": "ef" * 32},
            "yanked": "broken build",
        },
        {
            "filename": "ai_dynamo-1.6.0-py3-none-any.whl",
            "hashes": {"sha256": "01" * 32},
            "yanked": False,
        },
    ],
}


class Index:
    def __init__(self) -> None:
        self.body, self.type = json.dumps(LISTING).encode(), "application/vnd.pypi.simple.v1+json"
        self.asked: list[tuple[str, str]] = []  # (path, Accept header)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[Index]:
    state = Index()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.asked.append((self.path, self.headers.get("Accept", "")))
            self.send_response(200)
            self.send_header("Content-Type", state.type)
            self.end_headers()
            self.wfile.write(state.body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{server.server_port}/simple")
    yield state
    server.shutdown()
    server.server_close()


def test_the_wheels_not_yanked_with_their_sha256(served: Index) -> None:
    assert pypi.list_wheels("ai-dynamo") == {
        "ai_dynamo-1.6.1-py3-none-any.whl": "ab" * 32,
        "ai_dynamo-1.6.0-py3-none-any.whl": "01" * 32,
    }
    assert served.asked == [("/simple/ai-dynamo/", "application/vnd.pypi.simple.v1+json")]


def test_an_answer_that_is_not_the_json_listing_is_one_error(served: Index) -> None:
    served.body, served.type = b"<html><a>ai_dynamo-1.6.1.whl</a></html>", "text/html"
    with pytest.raises(ToolkitError, match=r"ai-dynamo on .*: the answer is not the index's JSON"):
        pypi.list_wheels("ai-dynamo")
    served.body = json.dumps({"meta": {}}).encode()
    with pytest.raises(ToolkitError, match="the listing lacks 'files'"):
        pypi.list_wheels("ai-dynamo")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_index_is_one_line_without_its_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    port = free_port()  # nothing listens there any more
    monkeypatch.setenv("PIP_INDEX_URL", f"http://someone:s3cret@127.0.0.1:{port}/simple/")
    with pytest.raises(ToolkitError) as caught:
        pypi.list_wheels("ai-dynamo", timeout=5)
    message = str(caught.value)
    assert message.startswith(f"cannot list the files of ai-dynamo on http://127.0.0.1:{port}")
    assert "s3cret" not in message and "\n" not in message


def test_pypi_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    seen: list[str] = []

    def fake_open(request: object, timeout: float) -> object:
        seen.append(request.full_url)  # type: ignore[attr-defined]
        raise OSError("offline")

    monkeypatch.setattr(pypi.urllib.request, "urlopen", fake_open)
    with pytest.raises(ToolkitError, match=r"on https://pypi\.org/simple/: offline"):
        pypi.list_wheels("ai-dynamo")
    assert seen == ["https://pypi.org/simple/ai-dynamo/"]
