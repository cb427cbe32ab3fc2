"""``run_scenario``: run one scenario, check its expectations, and report readably."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handoff_sim._terminal import escape_value
from handoff_sim.scenarios._build import ModelFactory
from handoff_sim.scenarios._errors import ScenarioError
from handoff_sim.scenarios._expect import Mismatch, check_expectations, describe_error, show
from handoff_sim.scenarios._load import LoadedScenario, load_dict, load_path
from handoff_sim.scenarios._run._runtime import DefaultRuntime, ScenarioRun, ScenarioRuntime
from handoff_sim.trace import Trace

__all__ = ["ScenarioResult", "expected_events", "render_failure", "run_scenario"]


@dataclass(frozen=True)
class ScenarioResult:
    """How a scenario went: pass or fail, the mismatches, the trace of every turn."""

    scenario: LoadedScenario
    passed: bool
    mismatches: list[Mismatch]
    trace: Trace
    outputs: list[str | None] = field(default_factory=list)
    error: BaseException | None = None
    elapsed_ms: float = 0.0

    def render_failure(self) -> str:
        """The readable failure report (see :func:`render_failure`)."""
        return render_failure(self)


def _one(scenario: LoadedScenario | Mapping[str, Any] | str | Path) -> LoadedScenario:
    if isinstance(scenario, LoadedScenario):
        return scenario
    loaded = load_dict(scenario) if isinstance(scenario, Mapping) else load_path(scenario)
    if len(loaded) != 1:
        ids = ", ".join(s.id for s in loaded)
        raise ScenarioError(
            f"run_scenario runs one scenario, but this holds {len(loaded)} ({ids}); "
            "load them with load_path/load_dict and run each"
        )
    return loaded[0]


def run_scenario(
    scenario: LoadedScenario | Mapping[str, Any] | str | Path,
    *,
    runtime: ScenarioRuntime | None = None,
    model_factories: Sequence[ModelFactory] = (),
    observers: Sequence[object] = (),
) -> ScenarioResult:
    """Run one scenario (every turn, virtual time, its seed) and check what it expects.

    Snapshot expectations (``expect.snapshot``) are left to the pytest plugin. A scenario
    whose referenced material failed to load, as it expects, runs nothing: that error is
    its outcome, whatever the runtime.
    """
    loaded = _one(scenario)
    if loaded.load_error is not None:
        run = ScenarioRun(Trace(), [], loaded.load_error, 0.0, [], {})
    else:
        chosen = runtime if runtime is not None else DefaultRuntime(model_factories)
        run = chosen.run(loaded, observers=tuple(observers))
    mismatches = check_expectations(loaded, run)
    return ScenarioResult(
        scenario=loaded,
        passed=not mismatches,
        mismatches=mismatches,
        trace=run.trace,
        outputs=list(run.outputs),
        error=run.error,
        elapsed_ms=run.elapsed_ms,
    )


def render_failure(result: ScenarioResult) -> str:
    """Each failing expectation with file:line, the expected events, the actual trace
    as a tree and as an event listing. No internal traceback.

    Every value from the file or the run (names, messages, outputs, errors) is put in its
    line with its control characters escaped, line breaks included: none can start a line.
    """
    scenario = result.scenario
    path = escape_value(scenario.path)
    status = "passed" if result.passed else f"failed ({len(result.mismatches)} mismatch(es))"
    lines = [f"scenario {escape_value(scenario.id)} {status} — {path}:{scenario.line}"]
    for mismatch in result.mismatches:
        lines.append("")
        lines.extend(_mismatch_lines(mismatch, path))
        if mismatch.kind == "trace" and isinstance(mismatch.expected, dict):
            lines.extend(expected_events(mismatch.expected))
    if scenario.load_error is not None:
        at, error = scenario.load_error_field, describe_error(scenario.load_error)
        where = f"{path}:{scenario.location(at)}: {escape_value(scenario.field_name(at))}"
        lines += ["", f"{where}: raised while loading: {escape_value(error)}"]
    elif result.error is not None:
        lines += ["", f"run error: {escape_value(describe_error(result.error))}"]
        notes = getattr(result.error, "__notes__", None)  # how to fix it, when the error says
        if isinstance(notes, list):
            lines += [f"  note: {escape_value(note)}" for note in notes]
    if result.outputs:
        lines += ["", f"outputs: {escape_value(show(result.outputs))}"]
    lines += ["", "actual handoffs:", result.trace.render_tree().rstrip("\n")]
    lines += ["", "actual events:", result.trace.render().rstrip("\n") or "(no events)"]
    return "\n".join(lines) + "\n"


def _mismatch_lines(mismatch: Mismatch, path: str) -> list[str]:
    """The lines of :meth:`Mismatch.format`, each value escaped on the line it belongs to."""
    where = f"{path}:{mismatch.line}" if mismatch.line else path
    head = f"{where}: {escape_value(mismatch.field)}: {escape_value(mismatch.message)}"
    if mismatch.kind == "trace":
        return [head]
    if mismatch.kind == "trajectory" and isinstance(mismatch.expected, list):
        return [head, *(f"  {escape_value(str(line))}" for line in mismatch.expected)]
    return [
        head,
        f"    expected: {escape_value(show(mismatch.expected))}",
        f"    actual:   {escape_value(show(mismatch.actual))}",
    ]


def expected_events(expected: dict[str, Any]) -> list[str]:
    """The lines listing a trace mismatch's expected events, each marked matched or not."""
    failed = expected.get("failed")
    out = [f"  expected events (match: {escape_value(expected.get('match'))}):"]
    for index, pattern in enumerate(expected.get("events", [])):
        mark = "✓" if failed is None or index < failed else ("✗" if index == failed else "·")
        text = json.dumps(pattern, ensure_ascii=False, separators=(", ", ": "))
        out.append(f"    {mark} {index}: {escape_value(text)}")
    return out
