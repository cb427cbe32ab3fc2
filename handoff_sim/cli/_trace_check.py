"""Check a recorded trace against a scenario's ``expect`` block, as if the scenario had run.

A trace read from OTLP (``Trace.from_otlp``) has no run behind it; what a scenario
run would report is read from its events: the output of each top-level run is a
turn's output, the first top-level run that failed is the run's error (a
:class:`RecordedRunError` named after the recorded exception type, so
``expect.error.type`` matches it), the last event's time is the elapsed time.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from handoff_sim.errors import RunError
from handoff_sim.events import RunEndEvent, RunStartEvent
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim.scenarios import LoadedScenario, ScenarioResult, ScenarioRun

__all__ = ["RecordedRunError", "check_recorded", "recorded_error", "scenario_run"]

_TYPE = re.compile(r"([A-Za-z_][\w.]*): (.*)", re.DOTALL)


class RecordedRunError(RunError):
    """A top-level run of a recorded trace ended with an error (or was cancelled).

    The error of a checked trace is an instance of a subclass named after the
    recorded exception type (``HandoffDeniedError: ...`` gives a class
    ``HandoffDeniedError``), so an expectation on the error type matches it.
    """

    def __init__(self, message: str, recorded: str | None) -> None:
        super().__init__(message)
        self.recorded = recorded


def recorded_error(text: str | None, status: str) -> RecordedRunError:
    """The error a failed or cancelled top-level run stands for."""
    if status == "cancelled":
        return RecordedRunError("the run was cancelled", text)
    found = _TYPE.fullmatch(text or "")
    if found is None:
        return RecordedRunError(text or "the run failed", text)
    name = found.group(1).rsplit(".", 1)[-1]
    if not name.isidentifier():
        return RecordedRunError(text or "the run failed", text)
    cls = type(name, (RecordedRunError,), {"__module__": "handoff_sim.recorded"})
    error: RecordedRunError = cls(found.group(2), text)
    return error


def scenario_run(trace: Trace) -> ScenarioRun:
    """What running a scenario would have reported, read from ``trace``."""
    from handoff_sim.scenarios import ScenarioRun

    roots = {e.run_id for e in trace if isinstance(e, RunStartEvent) and e.parent_run_id is None}
    outputs: list[str | None] = []
    error: BaseException | None = None
    for event in trace:
        if isinstance(event, RunEndEvent) and event.run_id in roots:
            if event.status != "completed":
                error = recorded_error(event.error, event.status)
                break
            outputs.append(event.output)
    elapsed = round(max((e.t for e in trace), default=0.0) * 1000, 3)
    return ScenarioRun(trace, outputs, error, elapsed)


def check_recorded(trace: Trace, scenario: LoadedScenario) -> ScenarioResult:
    """``scenario``'s expectations checked on ``trace``; the result renders like a run's."""
    from handoff_sim.scenarios import ScenarioResult
    from handoff_sim.scenarios._expect import check_expectations

    run = scenario_run(trace)
    mismatches = check_expectations(scenario, run)
    return ScenarioResult(
        scenario=scenario,
        passed=not mismatches,
        mismatches=mismatches,
        trace=trace,
        outputs=list(run.outputs),
        error=run.error,
        elapsed_ms=run.elapsed_ms,
    )
