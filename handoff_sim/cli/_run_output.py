"""What ``handoff-sim run`` prints on stdout while it runs scenarios.

By default one line per scenario (status, ``path::id``, virtual time and handoff
count), then the report of each failure, then the summary. ``-v`` adds each passing
scenario's trace under a legend of its columns; ``-q`` prints each failure's report
where it happens and leaves the handoff count out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from handoff_sim._terminal import escape_text, escape_value

if TYPE_CHECKING:
    from handoff_sim.scenarios import ScenarioResult

__all__ = ["LEGEND", "QUIET", "VERBOSE", "RunOutput", "virtual"]

QUIET, NORMAL, VERBOSE = -1, 0, 1

LEGEND = """\
How to read a trace:
  handoffs  one line per delegation: caller → sub-agent via tool [handoff id], its status
            (and reason), attempts, depth in the tree, and how long it took in virtual time
  events    # the event's number; t virtual time since the scenario started; the event type,
            indented by the depth of the agent that emitted it; then agent: the event's fields
"""

EVENTS_HEADER = f"{'#':>4} {'t':>10} {'event':<21} agent: fields"
"""A header row aligned with the columns of ``Trace.render()``."""


class RunOutput:
    """Prints the scenario lines and keeps the failure reports for the end."""

    def __init__(self, out: TextIO, verbosity: int = NORMAL, *, framework: bool = False) -> None:
        self._out = out
        self._framework = framework  # a framework runtime runs every scenario in virtual time
        self._verbosity = verbosity
        self._failures: list[str] = []
        self._legend_shown = False

    def passed(self, where: str, result: ScenarioResult) -> None:
        """One ``PASS`` line; with ``-v`` the handoff tree and the events below it."""
        self._line(f"PASS {escape_value(where)} ({self._facts(result)})")
        if self._verbosity >= VERBOSE:
            self._legend()
            trace = result.trace
            self._line(_indent(f"handoffs:\n{trace.render_tree()}"))
            self._line(_indent(f"events:\n{EVENTS_HEADER}\n{trace.render() or '(no events)'}"))

    def failed(self, where: str, result: ScenarioResult) -> None:
        """One ``FAIL`` line; its report at once with ``-q``, else after the last scenario."""
        from handoff_sim.scenarios import render_failure

        if self._verbosity <= QUIET:
            self._line(f"FAIL {escape_value(where)}")
            self._line(render_failure(result))
            return
        self._line(f"FAIL {escape_value(where)} ({self._facts(result)})")
        self._failures.append(render_failure(result))

    def not_applicable(self, where: str, reason: str) -> None:
        """An ``N/A`` line with the reason the framework cannot run the scenario."""
        self._line(f"N/A  {escape_value(where)} ({escape_value(reason)})")

    def finish(self, summary: str) -> None:
        """The failure reports kept back, then the summary line."""
        if self._failures:
            if self._verbosity >= VERBOSE:
                self._legend()
            self._line("\n== failures ==")
            for report in self._failures:
                self._line(f"\n{report}")
            self._line("")
        self._line(summary)

    def _facts(self, result: ScenarioResult) -> str:
        real = result.scenario.spec.clock == "real" and not self._framework
        if real:  # measured, not scripted: whole milliseconds are all that mean anything
            elapsed = f"{virtual(round(result.elapsed_ms))} real"
        else:
            elapsed = f"{virtual(result.elapsed_ms)} virtual"
        if self._verbosity <= QUIET:
            return elapsed
        count = len(result.trace.handoffs())
        return f"{elapsed}, {count} handoff{'' if count == 1 else 's'}"

    def _legend(self) -> None:
        if not self._legend_shown:
            self._out.write(LEGEND)
            self._legend_shown = True

    def _line(self, text: str) -> None:
        """Print ``text``: a value in it was escaped where it was put in its line; any
        control character left but line breaks is escaped here."""
        print(escape_text(text.rstrip("\n")), file=self._out)


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.rstrip("\n").split("\n"))


def virtual(ms: float) -> str:
    """A virtual duration for people: ``250ms``, ``90s``, ``2h30m``, ``30d``."""
    if ms < 1000:
        return f"{ms:g}ms"
    seconds = ms / 1000
    if seconds < 120:
        return f"{seconds:g}s"
    minutes, sec = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    parts = [(days, "d"), (hours, "h"), (minutes, "m"), (sec, "s")]
    return "".join(f"{n}{unit}" for n, unit in parts if n) or "0s"
