"""The pypi source and the recorded tree; the git and path sources, and fetch's bad
inputs and faults, are in test_faults.py, through the command line."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from dynpatch.cli import build_parser
from dynpatch.errors import ToolkitError
from dynpatch.fetch import FetchOptions, fetch, source_options
from dynpatch.io import git as gitio
from dynpatch.pin import load_pin
from tests.fixtures.synthetic import SYNTHETIC_FILES, write_pin


def test_pypi_source_lays_out_the_wheel_in_repository_layout(synthetic_release) -> None:
    rel = synthetic_release()
    checkout = fetch(rel.pin, rel.ws)
    root = checkout.path
    assert (root / "components/src/dynamo/common/backend/logprobs.py").read_text() == (
        SYNTHETIC_FILES["dynamo/common/backend/logprobs.py"]
    )
    assert not list(root.rglob("_version.py")), "build-generated files stay out"
    assert not list(root.rglob("*.dist-info"))
    assert gitio.rev_parse(root, "upstream/9.9.9") == checkout.base
    message = gitio.commit_message(root, checkout.base)
    assert rel.pin.pinned.sha256 in message and "9.9.9" in message
    assert any(rel.pin.pinned.sha256 in line for line in checkout.provenance)


def test_recorded_tree_is_enforced(synthetic_release) -> None:
    rel = synthetic_release()
    tree = gitio.tree_of(fetch(rel.pin, rel.ws).path, "upstream/9.9.9")
    pin = write_pin(rel.pin.path, "9.9.9", rel.wheel.name, rel.pin.pinned.sha256, tree="0" * 40)
    with pytest.raises(ToolkitError, match=f"has tree {tree}, pin records 0000"):
        fetch(load_pin(pin), rel.ws)


SOURCES = {
    "pypi": FetchOptions(),
    "path": FetchOptions(source="path", path=Path("my clone")),
    "git": FetchOptions(source="git", url="https://u:TOKEN@example.com/d.git", ref="main"),
}


@pytest.mark.parametrize("verb", ["matrix", "pr"])
@pytest.mark.parametrize("source", SOURCES)
def test_the_command_told_to_judge_a_tree_names_the_same_source_as_its_verb_takes_it(
    source: str, verb: str
) -> None:
    # what apply (a matrix command) and pr (a pr command) tell the user to run: the same
    # tree, quoted, no credential in it, in options that verb's own parser takes
    told = source_options(SOURCES[source], "9.9.9", verb)
    args = build_parser().parse_args([verb, *shlex.split(told)])
    given = SOURCES[source]
    want = (source, given.path, given.url and "https://example.com/d.git", given.ref)
    assert (args.source or "pypi", args.path, args.url, args.ref) == want
    one_release = ("9.9.9", None) if verb == "pr" or source != "pypi" else (None, "9.9.9")
    assert (args.version, getattr(args, "versions", None)) == one_release
    no_newest = False if (verb, source) == ("matrix", "pypi") else None  # not PyPI's newest
    assert getattr(args, "newest", None) is no_newest
