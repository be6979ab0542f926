"""How much a bench run measures: the cases, and the sample counts of the full and the
quick form (``--quick``), with the options that override them."""

from __future__ import annotations

from dataclasses import dataclass

from dynpatch.bench.options import Options
from dynpatch.bench.records import Case
from dynpatch.errors import ToolkitError

REFERENCE = Case(tokens=256, choices=4, k=1)
SIZES = (256, 1024, 4096, 16384)
CHOICES = (1, 4)
ALLOC_SAMPLES = 96  # sampled chunks per sweep case for tracemalloc
BOOTSTRAP_SEED = 20261130


def sweep_cases() -> list[Case]:
    """Every sweep case: each size with each number of choices, sizes first."""
    return [Case(tokens=n, choices=c, k=1) for n in SIZES for c in CHOICES]


@dataclass(frozen=True)
class Settings:
    quick: bool
    pairs: int  # reference: process pairs (a baseline and a patched worker each)
    ops: int  # reference: interleaved op pairs per process pair
    warmup: int
    rounds: int
    min_chunks: int  # per sweep case and round: short streams are replayed until this many

    @staticmethod
    def of(args: Options) -> Settings:
        """The form's defaults with ``args``' overrides; a ToolkitError for a bad count."""
        for name in ("pairs", "ops", "rounds"):
            value = getattr(args, name)
            if value is not None and value < 1:
                raise ToolkitError(f"--{name} must be at least 1, not {value}")
        if args.warmup is not None and args.warmup < 0:
            raise ToolkitError(f"--warmup must be 0 or more, not {args.warmup}")
        quick = bool(args.quick)
        return Settings(
            quick=quick,
            pairs=args.pairs or (3 if quick else 10),
            ops=args.ops or (8 if quick else 30),
            warmup=args.warmup if args.warmup is not None else (2 if quick else 5),
            rounds=args.rounds or (1 if quick else 3),
            min_chunks=4096 if quick else 65536,
        )

    def note(self) -> str:
        """The settings line printed under the tables."""
        return (
            f"settings: {self.pairs} process pairs x {self.ops} interleaved op pairs "
            f"(+{self.warmup} warm-up ops), {self.rounds} sweep round(s)"
            + (
                "; QUICK run: indicative only, the targets are judged on the full run"
                if self.quick
                else ""
            )
        )
