"""The pinned upstream release and the known releases, read from ``vendor/dynamo.toml``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from dynpatch.errors import ToolkitError

ROOT = Path(__file__).resolve().parent.parent
PIN_FILE = ROOT / "vendor" / "dynamo.toml"


@dataclass(frozen=True)
class Release:
    version: str
    tag: str
    wheel: str
    sha256: str
    # git tree id of the laid-out wheel; empty when not recorded yet.
    tree: str = ""

    @property
    def base_tag(self) -> str:
        """Tag of the pristine upstream commit inside a materialised checkout."""
        return f"upstream/{self.version}"


@dataclass(frozen=True)
class Pin:
    url: str
    version: str
    package: str
    wheel_prefix: str
    repo_prefix: str
    exclude: tuple[str, ...]
    author: str
    date: str
    branch: str
    releases: dict[str, Release] = field(default_factory=dict)
    path: Path = PIN_FILE
    # [matrix]: releases `nox -s matrix` runs the series against, and whether the newest
    # release or dev wheel on PyPI is added to them at run time.
    matrix: tuple[str, ...] = ()
    matrix_newest: bool = False
    # Releases older than this are declared beyond the verify replay's reach: its error
    # there is shown as "unsupported", not counted as a failure ("" declares nothing).
    matrix_verify_from: str = ""

    @property
    def pinned(self) -> Release:
        return self.release(self.version)

    def release(self, version: str) -> Release:
        try:
            return self.releases[version]
        except KeyError:
            known = ", ".join(sorted(self.releases)) or "none"
            raise ToolkitError(
                f'unknown version {version}: {self.path.name} has no [releases."{version}"] '
                f"entry with its wheel sha256 (known: {known})"
            ) from None


def load_pin(path: Path = PIN_FILE) -> Pin:
    try:
        data = tomllib.loads(path.read_text())
        up, layout, series = data["upstream"], data["layout"], data["series"]
        matrix = data.get("matrix", {})
        releases = {
            v: Release(
                version=v,
                tag=r["tag"],
                wheel=r["wheel"],
                sha256=r["sha256"].lower(),
                tree=r.get("tree", ""),
            )
            for v, r in data.get("releases", {}).items()
        }
        pin = Pin(
            url=up["url"],
            version=up["version"],
            package=data["pypi"]["package"],
            wheel_prefix=layout["wheel_prefix"],
            repo_prefix=layout["repo_prefix"],
            exclude=tuple(layout.get("exclude", ())),
            author=series["author"],
            date=series["date"],
            branch=series["branch"],
            releases=releases,
            path=path,
            matrix=tuple(str(v) for v in matrix.get("versions", ())),
            matrix_newest=bool(matrix.get("newest", False)),
            matrix_verify_from=str(matrix.get("verify_from", "")),
        )
    except FileNotFoundError:
        raise ToolkitError(f"pin file not found: {path}") from None
    except OSError as exc:
        raise ToolkitError(f"cannot read the pin file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ToolkitError(f"pin file {path} is malformed: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ToolkitError(f"pin file {path} is malformed: {exc}") from None
    except KeyError as exc:
        raise ToolkitError(f"pin file {path} is malformed: missing key {exc}") from None
    except (TypeError, AttributeError) as exc:
        raise ToolkitError(
            f"pin file {path} is malformed: a value has the wrong type ({exc})"
        ) from None
    pin.release(pin.version)  # the pinned version must be a known release
    _check_date(pin)
    return pin


def _check_date(pin: Pin) -> None:
    """``[series] date`` must be an ISO 8601 date with a time zone (git records it)."""
    try:
        when = datetime.fromisoformat(pin.date)
    except (TypeError, ValueError):
        when = None
    if when is None or when.utcoffset() is None:
        raise ToolkitError(
            f"pin file {pin.path} is malformed: [series] date {pin.date!r} is not an ISO 8601 "
            "date with a time zone (e.g. 2026-11-30T00:00:00+00:00)"
        )


def show(pin_file: Path, field: str) -> int:
    """``python -m dynpatch pin FIELD``: one value of the pin, for the noxfile (which must
    not parse the pin itself, so that a bad pin gets this module's one error line)."""
    pin = load_pin(pin_file)
    print({"version": pin.version, "runtime": f"ai-dynamo-runtime=={pin.version}"}[field])
    return 0
