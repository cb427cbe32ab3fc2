"""Scenario errors: a malformed file lists every problem as ``path:line:col: field: message``.

HandoffSimError
└── ScenarioError                 a scenario cannot be loaded or run as written
    └── ScenarioFileError         a file is malformed: .path, .problems

``ScenarioError`` is one of the error families of ``handoff_sim.errors``, defined there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from handoff_sim._terminal import escape_value
from handoff_sim.errors import ScenarioError

__all__ = ["Problem", "ScenarioError", "ScenarioFileError"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a scenario file, at a 1-based line and column."""

    path: str
    line: int
    column: int
    field: str
    message: str

    def format(self) -> str:
        """``path:line:col: field.path: message`` on one line: a control character of a
        name quoted in it (a line break included) is shown as its escape."""
        return escape_value(f"{self.path}:{self.line}:{self.column}: {self.field}: {self.message}")


class ScenarioFileError(ScenarioError):
    """A scenario file is malformed; ``str()`` has one line per problem."""

    def __init__(self, path: str | Path, problems: list[Problem]) -> None:
        self.path = str(path)
        self.problems = sorted(problems, key=lambda p: (p.line, p.column, p.field))
        super().__init__("\n".join(p.format() for p in self.problems))
