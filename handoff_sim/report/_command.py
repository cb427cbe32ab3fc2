"""``handoff-sim run --html FILE``: what the command collects while it runs, and the file.

The command hands over each result and each file it could not load; the report is
written once the run is over, so a path that cannot be written costs no scenario run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from handoff_sim.report._entry import ReportEntry, entry_from_error, entry_from_result
from handoff_sim.report._html import write_report

if TYPE_CHECKING:
    from handoff_sim.scenarios import ScenarioResult

__all__ = ["CommandReport"]


class CommandReport:
    """The entries of one ``handoff-sim run``, written to ``path`` by :meth:`write`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.entries: list[ReportEntry] = []

    def add(self, result: ScenarioResult) -> None:
        """A scenario that ran (passed or failed)."""
        self.entries.append(entry_from_result(result))

    def add_problem(self, path: str | Path, message: str, *, id: str = "<file>") -> None:
        """A file (or a scenario) that could not run, with the message printed for it."""
        self.entries.append(entry_from_error(path, message, id=id))

    def write(self, err: TextIO) -> bool:
        """Write the report; on failure print one line on ``err`` and return False."""
        try:
            write_report(self.entries, self.path)
        except OSError as exc:
            print(
                f"handoff-sim: cannot write the HTML report {self.path}: {exc.strerror or exc}",
                file=err,
            )
            return False
        return True
