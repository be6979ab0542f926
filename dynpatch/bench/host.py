"""The machine a bench run ran on: CPU, load average and CPU steal around the run, and
the replay children's environment (read from Linux's /proc where there is one)."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TIMER = (
    "op: time.thread_time_ns (handler thread CPU time, gc disabled); "
    "per chunk: time.perf_counter_ns between chunks"
)


def _loadavg() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


def _cpu_times() -> list[int] | None:
    """The aggregate ``cpu`` line of /proc/stat (user nice system idle iowait irq softirq
    steal ...), to report how much CPU the hypervisor took from this machine meanwhile."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    return [int(f) for f in fields[1:]] if fields and fields[0] == "cpu" else None


@dataclass(frozen=True)
class Snapshot:
    """The load average and the CPU time counters at one moment."""

    loadavg: tuple[float, float, float]
    cpu_times: list[int] | None

    @staticmethod
    def now() -> Snapshot:
        return Snapshot(_loadavg(), _cpu_times())


@dataclass(frozen=True)
class Load:
    """The machine's load from one snapshot to a later one."""

    before: Snapshot
    after: Snapshot

    @property
    def steal_pct(self) -> float | None:
        """Share of all CPU time in between that the hypervisor took (None: unknown)."""
        a, b = self.before.cpu_times, self.after.cpu_times
        if not a or not b or len(a) < 8 or len(b) < 8:
            return None
        total = sum(b) - sum(a)
        return 100.0 * (b[7] - a[7]) / total if total > 0 else None


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo), else what the platform says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(child: dict[str, Any], load: Load) -> dict[str, Any]:
    """The ``environment`` of ``bench.json``: this machine, ``load``, and what the child
    (its setup report) ran with."""
    return {
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadavg_before": list(load.before.loadavg),
        "loadavg_after": list(load.after.loadavg),
        "cpu_steal_pct": load.steal_pct,
        "child": child.get("environment"),
        "modules": child.get("modules"),
        "timer": TIMER,
    }


def note(environment: dict[str, Any]) -> str:
    """The host line printed under the tables."""
    steal = environment["cpu_steal_pct"]
    return (
        f"host: {environment['cpu']} x{environment['cpus']}, Python {environment['python']}; "
        f"load average {environment['loadavg_before'][0]:.2f} before, "
        f"{environment['loadavg_after'][0]:.2f} after"
        + ("" if steal is None else f"; CPU steal {steal:.1f}% during the run")
    )
