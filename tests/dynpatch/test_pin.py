"""The pin: read (``load_pin``/``parse_pin``, every fault one error naming the file) and
edited (``with_release``/``with_version``: comments and layout kept, conflicts refused,
each result parsed back). The repo's own pin is only read."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynpatch.errors import ToolkitError
from dynpatch.pin import Release, load_pin, parse_pin, with_release, with_version
from tests.fixtures.synthetic import REPO

NEW = Release("9.9.9", "v9.9.9", "ai_dynamo-9.9.9-py3-none-any.whl", "ab" * 32, "cd" * 20)
SMALL = """[upstream]
url = "https://example.invalid/dynamo"
version = "1.0"  # the pinned release
[pypi]
package = "ai-dynamo"
# release 1.0
[releases."1.0"]
tag = "v1.0"
wheel = "ai_dynamo-1.0-py3-none-any.whl"
sha256 = "AA"
# about 1.0, kept with it

# the layout, kept with [layout]
[layout]
wheel_prefix = "dynamo/"
repo_prefix = "components/src/dynamo/"
[series]
author = "A <a@example.invalid>"
date = "2026-01-01T00:00:00+00:00"
branch = "dynpatch/work"
"""


def test_the_repo_pin_reads_and_parse_pin_is_load_pin_on_text() -> None:
    pin = load_pin(REPO.pin)
    assert pin.release(pin.version) == pin.pinned and pin.path == REPO.pin
    assert parse_pin(REPO.pin.read_text(), REPO.pin) == pin
    small = parse_pin(SMALL, Path("x.toml"))
    assert small.release("1.0").sha256 == "aa" and small.release("1.0").tree == ""
    assert small.matrix == () and not small.matrix_newest and small.exclude == ()


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[upstream\n", "is malformed: "),
        (SMALL.replace('branch = "dynpatch/work"\n', ""), "is malformed: missing key 'branch'"),
        (
            SMALL.replace('"2026-01-01T00:00:00+00:00"', '"not a date"'),
            "[series] date 'not a date' is not an ISO 8601 date with a time zone",
        ),
        (SMALL.replace('"2026-01-01T00:00:00+00:00"', '"2026-01-01"'), "is not an ISO 8601"),
        (SMALL.replace('version = "1.0"', 'version = "2.0"'), "unknown version 2.0"),
        (
            SMALL.replace('repo_prefix = "components/src/dynamo/"', "exclude = 1\nrepo_prefix = 2"),
            "is malformed: a value has the wrong type",
        ),
    ],
)
def test_a_bad_pin_is_one_error_naming_the_file(text: str, needle: str) -> None:
    with pytest.raises(ToolkitError) as caught:
        parse_pin(text, Path("/pins/dynamo.toml"))
    assert needle in str(caught.value)
    if "unknown version" not in needle:
        assert "pin file /pins/dynamo.toml" in str(caught.value)


def test_a_missing_pin_file(tmp_path: Path) -> None:
    # a folder or bytes that are not text: test_faults.py, through the command line
    with pytest.raises(ToolkitError, match="pin file not found: "):
        load_pin(tmp_path / "none.toml")


def test_pin_edits_keep_comments_and_refuse_conflicts(tmp_path: Path) -> None:
    text = REPO.pin.read_text()
    edited = with_version(with_release(text, NEW, "added by a test"), "9.9.9")
    assert edited.count("\n# ") == text.count("\n# ") + 1  # every comment kept, one added
    assert '\n# added by a test\n[releases."9.9.9"]\n' in edited  # right above its table
    path = tmp_path / "dynamo.toml"
    path.write_text(edited)
    pin = load_pin(path)
    assert pin.version == "9.9.9" and pin.release("9.9.9") == NEW
    assert pin.matrix == load_pin(REPO.pin).matrix  # the tables after [releases] survive
    # the new table sits after the last release, before [layout] and its comment
    assert edited.index('[releases."9.9.9"]') < edited.index("# hatch maps")
    # an entry that is already there must say the same
    assert with_release(edited, NEW) == edited
    other = Release("9.9.9", "v9.9.9", NEW.wheel, "ef" * 32, "")
    with pytest.raises(ToolkitError, match="refusing to replace it"):
        with_release(edited, other)
    # a recorded-without-tree entry gets its tree
    bare = Release("9.9.9", "v9.9.9", NEW.wheel, NEW.sha256, "")
    filled = with_release(with_release(text, bare), NEW)
    path.write_text(filled)
    assert load_pin(path).release("9.9.9").tree == NEW.tree


def test_edits_change_only_their_lines() -> None:
    text = REPO.pin.read_text()
    moved = with_version(text, "1.6.0")
    changed = [(a, b) for a, b in zip(text.splitlines(), moved.splitlines(), strict=True) if a != b]
    assert changed == [('version = "1.6.1"', 'version = "1.6.0"')]
    assert with_version(moved, "1.6.1") == text  # and back, byte for byte
    inline = with_version(SMALL, "1.0")
    assert 'version = "1.0"  # the pinned release\n' in inline  # its comment stays


def test_a_new_release_goes_between_the_last_one_and_the_next_tables_comment() -> None:
    release = Release("2.0", "v2.0", "ai_dynamo-2.0-py3-none-any.whl", "bb", "")
    edited = with_release(SMALL, release, "first line\n\nthird line")
    assert edited == SMALL.replace(
        "# about 1.0, kept with it\n\n",
        "# about 1.0, kept with it\n\n# first line\n#\n# third line\n"
        '[releases."2.0"]\ntag = "v2.0"\nwheel = "ai_dynamo-2.0-py3-none-any.whl"\n'
        'sha256 = "bb"\ntree = ""\n\n',
    )
    # a table without a tree line gets one after its last key, not after its comments
    treed = with_release(
        SMALL, Release("1.0", "v1.0", "ai_dynamo-1.0-py3-none-any.whl", "aa", "ee")
    )
    assert 'sha256 = "AA"\ntree = "ee"\n# about 1.0, kept with it\n' in treed


def test_edits_refuse_a_pin_they_cannot_edit() -> None:
    with pytest.raises(ToolkitError, match=r"no \[upstream\] version line"):
        with_version(SMALL.replace('version = "1.0"  # the pinned release\n', ""), "1.0")
    with pytest.raises(ToolkitError, match=r"unknown version 3\.0"):
        with_version(SMALL, "3.0")  # the result is parsed back: not a known release
