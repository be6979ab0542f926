"""Progress of the parent's child runs, on stderr: a live bar on a terminal, and one line
per step elsewhere (CI logs, where a live display would only print at the end)."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn


class Steps:
    """``with Steps(console, total) as steps: steps.start("what"); ...; steps.done()``."""

    def __init__(self, console: Console, total: int):
        self.console = console
        self.total = total
        self.count = 0
        self._t0 = time.perf_counter()
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        if console.is_terminal:
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeElapsedColumn(),
                console=console,
            )

    def __enter__(self) -> Steps:
        if self._bar is not None:
            self._bar.__enter__()
            self._task = self._bar.add_task("starting", total=self.total)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.__exit__(exc_type, exc, tb)

    def start(self, what: str) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, description=what)
        else:
            elapsed = time.perf_counter() - self._t0
            self.console.print(
                f"[{self.count + 1}/{self.total}] {what} (+{elapsed:.0f} s)", markup=False
            )

    def done(self) -> None:
        self.count += 1
        if self._bar is not None and self._task is not None:
            self._bar.advance(self._task)
