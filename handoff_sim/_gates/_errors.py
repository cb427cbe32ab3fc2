"""The errors of gates: a gate definition that cannot be read, a gate a trace failed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._terminal import escape_value
from handoff_sim.errors import CheckFailedError
from handoff_sim.scenarios import Problem

if TYPE_CHECKING:
    from handoff_sim._gates._evaluate import GateReport

__all__ = ["GateFailedError", "GateSpecError"]


class GateSpecError(ConfigurationError):
    """A gate file or a ``--gate`` option is wrong; ``str()`` has one line per problem,
    ``path:line:col: field.path: message``, and ``problems`` holds them."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.path, p.line, p.column, p.field))
        super().__init__("\n".join(_line(p) for p in self.problems))


def _line(problem: Problem) -> str:
    """``path:line:col: field: message``; a problem of no file (line 0) has no position."""
    if problem.line:
        return problem.format()
    return escape_value(f"{problem.path}: {problem.field}: {problem.message}")


class GateFailedError(CheckFailedError, AssertionError):
    """A trace failed one or more gates; ``report`` holds every gate's result."""

    def __init__(self, report: GateReport) -> None:
        self.report = report
        super().__init__(report.failure_message())
