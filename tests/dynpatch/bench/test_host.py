"""The machine a bench run ran on: CPU steal between two snapshots, the environment
record and the host line."""

from __future__ import annotations

from dynpatch.bench import host


def load(before: list[int] | None, after: list[int] | None) -> host.Load:
    return host.Load(host.Snapshot((1.0, 0.0, 0.0), before), host.Snapshot((2.5, 0.0, 0.0), after))


def test_steal_is_the_share_of_all_cpu_time_in_between() -> None:
    before = [100, 0, 50, 800, 0, 0, 0, 10]
    after = [150, 0, 70, 900, 0, 0, 0, 30]  # 190 ticks in all, 20 of them stolen
    assert load(before, after).steal_pct == 100.0 * 20 / 190


def test_steal_is_unknown_without_counters_or_time() -> None:
    assert load(None, [1] * 8).steal_pct is None
    assert load([1] * 7, [2] * 7).steal_pct is None
    assert load([1] * 8, [1] * 8).steal_pct is None


def test_a_snapshot_now_has_a_load_average() -> None:
    now = host.Snapshot.now()
    assert len(now.loadavg) == 3
    assert now.cpu_times is None or len(now.cpu_times) >= 4


def test_environment_and_note() -> None:
    child = {"environment": {"python": "3.11.7"}, "modules": {"dynamo.x": "/t/x.py"}}
    env = host.environment(child, load([0] * 8, [10, 0, 0, 0, 0, 0, 0, 10]))
    assert env["child"] == {"python": "3.11.7"} and env["modules"] == {"dynamo.x": "/t/x.py"}
    assert env["loadavg_before"] == [1.0, 0.0, 0.0] and env["cpu_steal_pct"] == 50.0
    assert env["timer"].startswith("op: time.thread_time_ns")
    assert host.note(env) == (
        f"host: {env['cpu']} x{env['cpus']}, Python {env['python']}; "
        "load average 1.00 before, 2.50 after; CPU steal 50.0% during the run"
    )
    env["cpu_steal_pct"] = None
    assert host.note(env).endswith("load average 1.00 before, 2.50 after")
