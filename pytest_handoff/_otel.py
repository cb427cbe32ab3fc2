"""``pytest --handoff-otel=FILE``: every scenario run's trace, written as one OTLP/JSON file.

Each scenario result (scenario items and the ``run_scenario`` fixture) is kept as it
arrives through ``pytest_handoff_scenario_result``; the file is written when the
session ends, traces sorted by name (``path::scenario``, the path relative to the
rootdir) so that it is the same with or without xdist. Under xdist each worker
sends its traces to the controller, which writes the file. Imported only when the
option is given.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from handoff_sim.trace import Trace

__all__ = ["register"]

_KEY = "handoff_otel_traces"


class _Recorder:
    """Keeps the traces of scenario results and writes them at the end of the session."""

    def __init__(self, config: pytest.Config, path: Path) -> None:
        from handoff_sim.otel._suite import OtelSuite  # without the extra: MissingExtraError, now

        self.config = config
        self.suite = OtelSuite(path)
        self.worker = hasattr(config, "workerinput")
        self.kept: list[tuple[str, str, dict[str, Any]]] = []
        self.message = ""

    def _name(self, scenario: Any) -> str:
        path = Path(scenario.path)
        try:
            shown = os.path.relpath(path, self.config.rootpath)
        except ValueError:  # another drive (Windows)
            shown = str(path)
        return f"{Path(shown).as_posix()}::{scenario.id}"

    @pytest.hookimpl
    def pytest_handoff_scenario_result(self, config: pytest.Config | None, result: Any) -> None:
        """Keep the trace of each scenario that ran."""
        name = self._name(result.scenario)
        if self.worker:
            attributes = {
                "handoff_sim.scenario.id": result.scenario.id,
                "handoff_sim.scenario.path": str(result.scenario.path),
                "handoff_sim.scenario.passed": bool(result.passed),
            }
            self.kept.append((name, _ascii_jsonl(result.trace), attributes))
        else:
            self.suite.add(result, name)

    def add_from_worker(self, data: list[Any]) -> None:
        """Traces a worker sent (name, JSON lines, resource attributes)."""
        from handoff_sim.trace import Trace

        for name, jsonl, attributes in data:
            self.suite.add_trace(name, Trace.from_jsonl(jsonl), dict(attributes))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Workers hand their traces over; the controller (or a plain session) writes."""
        if self.worker:
            session.config.workeroutput[_KEY] = self.kept  # type: ignore[attr-defined]
            return
        self.suite.items.sort(key=lambda item: item[0])
        try:
            self.suite.write()
        except OSError as exc:
            self.message = f"--handoff-otel: cannot write {self.suite.path}: {exc.strerror or exc}"
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        self.message = f"handoff-otel: {self.suite.summary()}"

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Say where the traces went (or why they could not be written)."""
        if self.message:
            terminalreporter.write_line(self.message)


def _ascii_jsonl(trace: Trace) -> str:
    """The trace as JSON lines, all ASCII: execnet cannot send a lone surrogate (which
    an output may hold), and ``Trace.from_jsonl`` reads it back the same."""
    return "".join(json.dumps(event.to_dict(), separators=(",", ":")) + "\n" for event in trace)


class _FromWorkers:
    """The xdist controller's side: collect what each worker kept."""

    def __init__(self, recorder: _Recorder) -> None:
        self.recorder = recorder

    @pytest.hookimpl
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """A worker finished: take its traces."""
        data = getattr(node, "workeroutput", {}).get(_KEY)
        if data:
            self.recorder.add_from_worker(data)


def register(config: pytest.Config, value: str) -> None:
    """Register the recorder for ``--handoff-otel=value``; a missing extra is a usage error."""
    path = Path(config.invocation_params.dir) / value
    try:
        recorder = _Recorder(config, path)
    except ImportError as exc:
        raise pytest.UsageError(f"--handoff-otel: {exc}") from None
    config.pluginmanager.register(recorder, "handoff-otel")
    if not recorder.worker and config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_FromWorkers(recorder), "handoff-otel-workers")
