"""``pytest --handoff-report=FILE``: every scenario item's result in one HTML report.

A plugin module of its own, loaded by the main plugin's ``pytest_plugins``.

Each scenario item's ``ScenarioResult`` (seen through ``pytest_handoff_scenario_result``)
becomes a report entry stored on the item's test report as plain data, so it reaches
the xdist controller with the report; the controller writes the file when the session
ends. Items that fail for another reason (a snapshot, a hook's error) are shown failed
with pytest's text; scenario files that fail to collect are listed as errors.
Imports only pytest at start-up: the report package loads when a result arrives.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_handoff._keys import SCENARIO_DIRS

if TYPE_CHECKING:
    from collections.abc import Generator

    from handoff_sim.report import ReportEntry
    from handoff_sim.scenarios import ScenarioResult

__all__ = ["ENTRY_ATTRIBUTE", "ReportPlugin", "pytest_addoption", "pytest_configure"]

ENTRY_ATTRIBUTE = "handoff_report_entry"
"""The test report attribute that carries a scenario's entry (a dict of plain values)."""

_SUFFIXES = (".yaml", ".yml")


class ReportPlugin:
    """Collects the entries of a session and writes the report on the controller."""

    def __init__(self, config: pytest.Config, path: str) -> None:
        self.config = config
        self.path = Path(config.invocation_params.dir, path)
        self.pending: list[ScenarioResult] = []
        self.entries: list[dict[str, Any]] = []
        self.problem: str | None = None

    @pytest.hookimpl
    def pytest_handoff_scenario_result(self, config: pytest.Config | None, result: Any) -> None:
        """Keep the result until the item that ran it makes its report."""
        self.pending.append(result)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Attach the entry of a scenario item to the report of its call (or failed setup)."""
        report = yield
        from pytest_handoff._collection import ScenarioItem

        if report.when == "call" or (report.when == "setup" and not report.passed):
            results, self.pending = self.pending, []
            if isinstance(item, ScenarioItem):
                entry = self._entry(item, report, results)
                setattr(report, ENTRY_ATTRIBUTE, entry.to_dict())
        return report

    def _entry(
        self, item: Any, report: pytest.TestReport, results: list[ScenarioResult]
    ) -> ReportEntry:
        from dataclasses import replace

        from handoff_sim.report import entry_from_error, entry_from_result

        scenario = item.scenario
        base = self.config.rootpath
        result = next((r for r in results if r.scenario is scenario), None)
        if result is None:
            status = "skipped" if report.skipped else "error"
            return entry_from_error(  # the scenario of a refused file never loaded
                item.path,
                _text(report) or "the scenario did not run",
                id=item.name,
                line=item.scenario_line,
                status=status,
                base=base,
            )
        entry = entry_from_result(result, base=base)
        if report.skipped:
            return replace(entry, status="skipped", notes=(*entry.notes, _text(report)))
        if report.failed and entry.status == "passed":
            return entry.with_failure(_text(report))
        return entry

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Take the entry (from this process, or from an xdist worker)."""
        data = getattr(report, ENTRY_ATTRIBUTE, None)
        if isinstance(data, dict):
            self.entries.append(data)

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A scenario file (or a broken link) that failed to collect is an error entry."""
        if not report.failed:
            return
        path = Path(self.config.rootpath, report.nodeid.split("::")[0])
        dirs: tuple[Path, ...] = self.config.stash.get(SCENARIO_DIRS, ())
        inside = any(path == d or d in path.parents for d in dirs)
        if inside and path.suffix in _SUFFIXES:
            from handoff_sim.report import entry_from_error

            entry = entry_from_error(path, _text(report), base=self.config.rootpath)
            self.entries.append(entry.to_dict())

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write the report (on the controller only); a path that cannot be written fails
        the session with a usage error."""
        if hasattr(self.config, "workerinput"):
            return
        from handoff_sim.report import write_report

        try:
            entries = [_read_entry(data) for data in self.entries]
            write_report(entries, self.path, base=self.config.rootpath)
        except OSError as exc:
            self.problem = f"cannot write {self.path}: {exc.strerror or exc}"
            session.exitstatus = pytest.ExitCode.USAGE_ERROR

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Say where the report is (or why it is not)."""
        if hasattr(self.config, "workerinput"):
            return
        if self.problem is not None:
            terminalreporter.write_line(f"handoff report: {self.problem}", red=True)
        else:
            count = len(self.entries)
            terminalreporter.write_line(
                f"handoff report: {self.path} ({count} scenario{'' if count == 1 else 's'})"
            )


def _read_entry(data: dict[str, Any]) -> ReportEntry:
    """The entry a report carried; one that does not read back is shown as an error
    entry saying why, so the rest of the report is still written."""
    from handoff_sim import ConfigurationError
    from handoff_sim.report import ReportEntry, entry_from_error

    try:
        return ReportEntry.from_dict(data)
    except ConfigurationError as exc:
        path, ident = data.get("path"), data.get("id")
        return entry_from_error(
            path if isinstance(path, str) else "<unknown>",
            f"the report entry of this scenario could not be read back: {exc}",
            id=ident if isinstance(ident, str) else "<file>",
        )


def _text(report: pytest.TestReport | pytest.CollectReport) -> str:
    """What pytest says about a report: the failure text, or a skip's reason."""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    return report.longreprtext


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--handoff-report=FILE`` in the plugin's ``handoff`` group."""
    group = parser.getgroup("handoff", "handoff-sim scenarios")
    group.addoption(
        "--handoff-report",
        dest="handoff_report",
        default=None,
        metavar="FILE",
        help="write one self-contained HTML report of the scenario items to FILE: "
        "summary, timelines in virtual time, handoff trees, failures with file:line",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the collector when ``--handoff-report`` is given (a missing folder is
    created when the report is written, as ``--handoff-otel``'s is)."""
    path = config.getoption("handoff_report", None)
    if not path:
        return
    config.pluginmanager.register(ReportPlugin(config, path), "handoff-report")
