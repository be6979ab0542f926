"""The wheel's second proof: the real TRT-LLM handler replayed from the *installed* packages.

The stock wheel and the patched one are each installed ``--no-deps`` into a folder of their
own, which the replay child puts first on its path (as ``verify`` does with a source tree);
the named scenarios run through each, and the complete chunk streams must be identical.
"""

from __future__ import annotations

from pathlib import Path

from dynpatch import verify
from dynpatch.console import err, out
from dynpatch.errors import ToolkitError
from dynpatch.io import files, pypi
from dynpatch.replay import runner, scenarios


def replay_installed(stock: Path, patched: Path, scratch_root: Path, python: str) -> None:
    """Replay every named scenario on ``stock`` and ``patched`` (wheel files) as installed
    packages; raises unless both ran their own package and no chunk diverged."""
    names = list(scenarios.NAMED)
    job: dict[str, object] = {"scenarios": names, "scripts": []}
    results = {}
    with files.owned_dir(scratch_root, ".wheel-replay-") as tmp:
        for label, wheel in (("baseline", stock), ("patched", patched)):
            target = tmp / label
            with err.status(f"installing {wheel.name} into a folder of its own ..."):
                pypi.pip_install_target(str(wheel), target)
            with err.status(f"replaying {len(names)} scenarios on the installed {label} ..."):
                tree = runner.Tree(label, target)
                results[label] = runner.run_child(tree, job, tmp / f"{label}.log", python=python)
    runner.check_trees(results["baseline"], results["patched"])
    expectations = {s.name: s.expect for s in scenarios.named(names)}
    outcomes = verify.compare(results["baseline"], results["patched"], expectations)
    bad = [o for o in outcomes if not o.ok]
    where = results["patched"].get("modules", {}).get("dynamo.common.backend.logprobs", "?")
    out.print(f"replay: logprobs from the installed patched wheel: {where}", markup=False)
    if bad or len(outcomes) != len(names):
        first = (
            f"{bad[0].name}: {bad[0].divergence or '; '.join(bad[0].unmet)}"
            if bad
            else f"{len(outcomes)} of {len(names)} scenarios returned"
        )
        raise ToolkitError(f"the installed wheels diverge: {first}")
    out.print(
        f"replay: {len(names)} named scenarios through the installed stock and patched "
        f"wheels: 0 divergences",
        markup=False,
    )
