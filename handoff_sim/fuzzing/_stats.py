"""Counters of a fuzz session, shared by the command's search and the hypothesis one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from handoff_sim._invariants import Invariant
from handoff_sim.fuzzing._case import CaseResult

__all__ = ["CHECKS_PER_RUN", "FuzzStats"]

CHECKS_PER_RUN = len(Invariant)


@dataclass
class FuzzStats:
    """Counters of a fuzz session; ``on_run`` is called after each run (for progress)."""

    checks_per_run: ClassVar[int] = CHECKS_PER_RUN
    """Invariants checked after each run (every one the runtime has)."""

    runs: int = 0
    checks: int = 0
    build_errors: int = 0
    run_errors: dict[str, int] = field(default_factory=dict)
    on_run: Callable[[FuzzStats], None] | None = None

    def record(self, result: CaseResult) -> None:
        self.runs += 1
        self.checks += CHECKS_PER_RUN
        if result.build_error is not None:
            self.build_errors += 1
        if result.error is not None:
            name = type(result.error).__name__
            self.run_errors[name] = self.run_errors.get(name, 0) + 1
        if self.on_run is not None:
            self.on_run(self)
