"""How a failed scenario reads in pytest's report.

Paths are relative to the rootdir, as in node ids. The report carries a crash line
(``path:line: field: what went wrong``): the short summary (``-rf``, ``-rA``) shows
its message, ``--tb=line`` the whole line, JUnit XML its message; below the header
comes the whole scenario report, never a Python traceback.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from _pytest._code.code import ExceptionChainRepr, ReprEntryNative, ReprFileLocation, ReprTraceback

from handoff_sim._terminal import escape_text, escape_value
from pytest_handoff._keys import OUTCOMES

if TYPE_CHECKING:
    from pytest_handoff._execute import Outcome

__all__ = [
    "TRACE_SECTION",
    "add_outcome_report",
    "crash_message",
    "failure_repr",
    "outcome_repr",
    "relative_text",
    "show_trace",
    "shown_path",
    "trace_text",
    "write_traces",
]

_SHORT = 40  # values longer than this stay out of the one-line reason


def shown_path(config: pytest.Config, path: Path) -> str:
    """``path`` as pytest's node ids show it: relative to the rootdir (absolute on another
    drive); a source that is no file path (``<dict in ...>``) as it is."""
    if not path.is_absolute():
        return str(path)
    try:
        return Path(os.path.relpath(path, config.rootpath)).as_posix()
    except ValueError:
        return str(path)


def relative_text(text: str, path: Path, shown: str) -> str:
    """``text`` with ``path:`` written ``shown:`` where a report places a location: at the
    start of a line, or after the dash of a scenario report's first line."""
    absolute, shown = escape_value(path), escape_value(shown)  # as the report shows them
    if absolute == shown:
        return text
    pattern = rf"(?m)(^\s*|— ){re.escape(absolute)}:"
    return re.sub(pattern, lambda m: f"{m.group(1)}{shown}:", text)


def crash_message(outcome: Outcome) -> tuple[int, str]:
    """The line of the first failed expectation and a one-line reason naming it."""
    from handoff_sim.scenarios._expect import show

    scenario = outcome.result.scenario
    mismatches = outcome.result.mismatches
    more = len(mismatches) - 1 + (outcome.snapshot_diff is not None)
    if not mismatches:
        first_line = (outcome.snapshot_diff or "").split("\n", 1)[0]
        return scenario.location("expect.snapshot"), escape_value(f"expect.snapshot: {first_line}")
    first = mismatches[0]
    reason = f"{first.field}: {first.message}"
    if first.kind != "trace":
        expected, actual = show(first.expected), show(first.actual)
        if len(expected) <= _SHORT and len(actual) <= _SHORT and "\n" not in expected + actual:
            reason += f" (expected {expected}, actual {actual})"
    if more:
        reason += f"; {more} more failed expectation{'s' if more > 1 else ''}"
    return first.line or scenario.line, escape_value(reason)  # a name may hold a line break


def failure_repr(item: pytest.Item, error: BaseException, line: int) -> ExceptionChainRepr:
    """The report of a failed scenario item: its crash line and the whole report text.

    ``error`` is the scenario failure or a scenario error; ``line`` is the scenario's
    line, used when nothing more precise is known.
    """
    outcomes = item.stash.get(OUTCOMES, [])
    if outcomes and not outcomes[-1].passed:
        return outcome_repr(item.config, outcomes[-1], str(error))
    shown = shown_path(item.config, item.path)
    text = relative_text(str(error), item.path, shown)
    first = text.split("\n", 1)[0]
    found = re.match(rf"{re.escape(shown)}:(\d+)(?::\d+)?: (.*)", first)
    if found is not None:
        line, first = int(found.group(1)), found.group(2)
    return _chain(item.config, text, shown, line, first)


def outcome_repr(config: pytest.Config, outcome: Outcome, text: str) -> ExceptionChainRepr:
    """The report of a failed scenario run: the crash line of its first failed expectation."""
    scenario = outcome.result.scenario
    shown = outcome.shown_path or shown_path(config, scenario.path)
    line, message = crash_message(outcome)
    return _chain(config, text, shown, line, message)


def _chain(
    config: pytest.Config, text: str, path: str, line: int, message: str
) -> ExceptionChainRepr:
    """The report as pytest's reports hold an exception: ``--tb=line`` shows the crash
    line alone, every other style the whole text. No control character but line breaks
    and tabs reaches the terminal, and the crash line holds none at all."""
    path, message = escape_value(path), escape_value(message)
    lines = [f"{row}\n" for row in escape_text(text).rstrip("\n").split("\n")]
    entries = [] if config.getoption("tbstyle", "auto") == "line" else [ReprEntryNative(lines)]
    traceback = ReprTraceback(entries, None, "native")
    return ExceptionChainRepr([(traceback, ReprFileLocation(path, line, message), None)])


def add_outcome_report(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    """Finish the report of a test that ran scenarios.

    A ``run_scenario`` failure gets its crash line; with ``--handoff-show-trace`` a passing
    test gets a ``handoff trace`` section per scenario it ran.
    """
    outcomes = item.stash.get(OUTCOMES, [])
    if report.when != "call" or not outcomes:
        return
    error = call.excinfo.value if call.excinfo is not None else None
    last = outcomes[-1]
    if isinstance(error, pytest.fail.Exception) and not last.passed and error.msg == last.report():
        report.longrepr = outcome_repr(item.config, last, error.msg)
    if report.passed and show_trace(item.config):
        for outcome in outcomes:
            report.sections.append((trace_section(outcome, len(outcomes) > 1), trace_text(outcome)))


def show_trace(config: pytest.Config) -> bool:
    """``--handoff-show-trace``, or the ``handoff_show_trace`` ini key."""
    return bool(
        config.getoption("handoff_show_trace", False) or config.getini("handoff_show_trace")
    )


TRACE_SECTION = "handoff trace"
EVENTS_HEADER = f"{'#':>4} {'t':>10} {'event':<21} agent: fields"


def trace_section(outcome: Outcome, named: bool) -> str:
    """The section's title: ``handoff trace``, with the scenario when a test ran several."""
    scenario = outcome.result.scenario
    return f"{TRACE_SECTION} {scenario.id}" if named else TRACE_SECTION


def trace_text(outcome: Outcome) -> str:
    """The handoff tree and the events of a scenario run, the events under a header row."""
    trace = outcome.result.trace
    events = trace.render() or "(no events)\n"
    return f"handoffs:\n{trace.render_tree()}events:\n{EVENTS_HEADER}\n{events}"


def write_traces(terminal: Any) -> None:
    """A ``handoff traces`` section: each passing test's trace sections, under its name."""
    shown = []
    for report in terminal.stats.get("passed", []):
        sections = [(n, text) for n, text in report.sections if n.startswith(TRACE_SECTION)]
        if sections and report.when == "call":
            shown.append((report, sections))
    if not shown:
        return
    terminal.write_sep("=", "handoff traces")
    for report, sections in shown:
        terminal.write_sep("_", report.head_line or report.nodeid)
        for name, text in sections:
            if name != TRACE_SECTION:
                terminal.write_sep("-", name)
            terminal.write(text)
