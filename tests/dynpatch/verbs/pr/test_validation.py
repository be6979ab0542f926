"""dynamo.verbs.pr.validation: the records that count for this base, series and design
(any other is not run, with why), what the console says of them, and what blocks a push."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from dynpatch import evidence
from dynpatch.verbs.pr import validation
from tests.fixtures.pr import World, git, sample

STAGES = ("test-upstream", "verify", "bench", "pre-commit")


def test_records_of_another_base_series_design_or_schema_do_not_count(tmp_path: Path) -> None:
    base, digest = "b" * 40, "d" * 64
    patches = tmp_path / "patches"
    out = tmp_path / "evidence"

    def save(record: evidence.Record) -> Path:
        target = evidence.path(out, record.stage, record.base, record.series_sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"stage": record.stage, **dataclasses.asdict(record)}))
        return target

    save(sample("test-upstream", base, digest, "delta"))
    save(sample("verify", "c" * 40, digest, "delta"))  # another base
    save(sample("bench", base, "e" * 64, "delta"))  # another series
    save(sample("pre-commit", base, digest, "one-liner"))  # another design
    found = validation.gather(out, base, digest, "delta")
    assert isinstance(found.tests, evidence.Record) and found.tests.facts.tiers[0].name == "cpu"
    assert found.verify == found.bench == "not run for this base and series"
    assert found.pre_commit == "made for the one-liner design, not delta"
    older = save(sample("test-upstream", base, digest, "delta"))
    older.write_text(older.read_text().replace('"schema": 2', '"schema": 1'))
    assert (
        "another version of the tool (schema 1, not 2)"
        in validation.gather(out, base, digest, "delta").tests
    )
    older.write_text(
        older.read_text()
        .replace('"schema": 1', '"schema": 2')
        .replace('"passed": 264', '"passed": "264"')
    )
    said = validation.gather(out, base, digest, "delta").tests
    assert said.startswith(
        "not a valid record: facts.tiers.0.before.passed: Input should be a valid integer"
    )
    older.write_text("{not json")
    assert validation.gather(out, base, digest, "delta").tests.startswith("unreadable (")
    assert not patches.exists()


def test_warnings_say_what_to_run_and_every_check_not_passed_blocks_the_push() -> None:
    base, digest = "b" * 40, "d" * 64
    found = validation.Found(
        sample("test-upstream", base, digest, "delta", passed=False),
        "not run for this base and series",
        sample("bench", base, digest, "delta"),
        "made by another version of the tool (schema 1, not 2)",
    )
    assert validation.warnings(found) == [
        "test-upstream: the saved result for this series is a FAIL",
        "verify: not run for this base and series: run `nox -s verify`",
        "pre-commit: made by another version of the tool (schema 1, not 2): run `nox -s apply`",
    ]
    on_main = "nox -s pr -- --source path --path CLONE --run-checks"  # not the pin's tree
    assert validation.warnings(found, on_main)[1].endswith(f"run `{on_main}`")
    assert validation.status("bench", found.bench) == "bench: pass (saved for this base and series)"
    assert [stage for stage, _ in found.each()] == [
        "test-upstream",
        "verify",
        "bench",
        "pre-commit",
    ]
    assert found.each()[2] == ("bench", found.bench)
    assert validation.push_blockers(found) == [
        "test-upstream: FAIL (test-upstream found a problem) (saved for this base and series)",
        "verify: not run for this base and series",
        "pre-commit: made by another version of the tool (schema 1, not 2)",
    ]


def test_records_made_on_another_base_are_not_run_for_this_one(world: World, pr) -> None:
    world.save(*STAGES)  # on v9.9.9
    who = ["-c", "user.name=U", "-c", "user.email=u@example.invalid"]
    git(world.repo, *who, "commit", "-q", "--allow-empty", "-m", "main moves on")
    head = git(world.repo, "rev-parse", "HEAD").stdout.strip()
    status, out, err = pr()
    assert status == 0, err
    text = world.out.read_text()
    assert "v9.9.9" not in text and f"**Checked on commit `{head[:12]}` of 20" in text
    assert "replayed before and after the change with a scripted engine: not run (" in text
    assert "evidence     verify: not run for this base and series" in out
    assert f"run `nox -s pr -- --source path --path {world.repo} --version" in err
