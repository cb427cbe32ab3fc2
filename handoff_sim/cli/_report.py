"""``handoff-sim run --html FILE``: what the command collects while it runs, and the file.

The command hands over each result, and says when a file or a scenario could not run;
the text it printed on stderr for that is kept (:meth:`CommandReport.watch`) so the
report shows the same message. Without ``--html`` every method does nothing, so the
command needs no branch for it. The report is written once the run is over.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from handoff_sim.report import ReportEntry, entry_from_error, entry_from_result, write_report

if TYPE_CHECKING:
    from handoff_sim.scenarios import ScenarioResult

__all__ = ["HTML_HELP", "CommandReport"]

HTML_HELP = (
    "also write one self-contained HTML report to FILE: a summary by file, and per scenario "
    "a timeline in virtual time, the handoff tree and any mismatch at file:line"
)


class _Kept(io.TextIOBase):
    """A text stream that writes through to another and keeps a copy."""

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self.target = target
        self.kept: list[str] = []

    def write(self, text: str) -> int:
        self.kept.append(text)
        return self.target.write(text)

    def flush(self) -> None:
        self.target.flush()

    def take(self) -> str:
        text, self.kept = "".join(self.kept), []
        return text


class CommandReport:
    """The entries of one ``handoff-sim run``; ``path`` None means no report was asked for."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self.entries: list[ReportEntry] = []
        self._kept: _Kept | None = None

    def watch(self, err: TextIO) -> TextIO:
        """``err``, keeping what is written to it for the next :meth:`add_problem`."""
        if self.path is None:
            return err
        self._kept = _Kept(err)
        return cast(TextIO, self._kept)

    def add(self, result: ScenarioResult) -> None:
        """A scenario that ran (passed or failed)."""
        if self.path is not None:
            self.entries.append(entry_from_result(result))

    def add_problem(self, path: str | Path, message: str = "", *, id: str = "<file>") -> None:
        """Something that could not run: ``message``, or what was printed since the last one.

        Nothing is added when there is no message and nothing was printed.
        """
        printed = self._kept.take() if self._kept is not None else ""
        text = (message or printed).strip()
        if self.path is not None and text:
            self.entries.append(entry_from_error(path, text, id=id))

    def write(self, out: TextIO, err: TextIO) -> bool:
        """Write the report and say where; on failure one line on ``err`` and False."""
        if self.path is None:
            return True
        try:
            write_report(self.entries, self.path)
        except OSError as exc:
            print(
                f"handoff-sim: cannot write the HTML report {self.path}: {exc.strerror or exc}",
                file=err,
            )
            return False
        print(f"HTML report: {self.path}", file=out)
        return True
