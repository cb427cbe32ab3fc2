"""One fuzz case: a scenario dict, built with the scenario builder and run in virtual time.

The dict has the scenario-file shape, so a failing case is its own YAML
reproducer. Adversarial blocks may carry ``max_turns``, ``fan_out`` and
``oversized_bytes``, which the scenario schema and builder accept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handoff_sim._agent import Agent
from handoff_sim._errors._configuration import (
    DuplicateToolNameError,
    InvalidNameError,
    ReservedPrefixError,
)
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._invariants import Invariant, Violation, check_determinism, check_invariants
from handoff_sim._models import ModelClient
from handoff_sim._patterns import search
from handoff_sim.errors import PatternTimeoutError
from handoff_sim.fuzzing._faults import Fault, FaultyRecorder
from handoff_sim.simulation import Simulation
from handoff_sim.subagents._naming import normalize_tool_name
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim.scenarios import LoadedScenario, ScenarioSpec

__all__ = [
    "ADVERSARIAL_KNOBS",
    "CaseResult",
    "build_case",
    "case_of",
    "check_case",
]

ADVERSARIAL_KNOBS = ("max_turns", "fan_out", "oversized_bytes")
"""The knobs an adversarial model block may carry beyond its seed and behaviours."""
_EXPLICIT_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class _Blueprint:
    """A case validated once, to build as many fresh agent trees as runs need."""

    spec: ScenarioSpec
    source: LoadedScenario | None = None
    """The scenario file the case was read from: ``python:`` input filters import next
    to it, and construction errors name its lines."""

    @classmethod
    def of(cls, case: Mapping[str, Any], source: LoadedScenario | None = None) -> _Blueprint:
        from handoff_sim.scenarios import ScenarioSpec

        return cls(ScenarioSpec.model_validate(case), source)


def build_case(case: Mapping[str, Any]) -> Agent:
    """The entry agent of a scenario dict, with fresh models (construction errors propagate).

    Agent types are resolved as the scenario runner does, inline ones and those of
    ``agent_types_dir``; a relative ``agent_types_dir`` is read from the working
    directory (:func:`case_of` makes a loaded file's one absolute).
    """
    return _build(case, _Blueprint.of(case))


def _build(case: Mapping[str, Any], blueprint: _Blueprint) -> Agent:
    from handoff_sim._sessions import InMemorySessionStore
    from handoff_sim.scenarios._build import (
        BuildContext,
        build_entry_agent,
        build_models,
        build_type_models,
    )
    from handoff_sim.scenarios._load import dotted, load_agent_types

    spec = blueprint.spec

    def locate(field: str) -> str:  # messages name the case; the field follows
        return str(case.get("scenario", "<case>"))

    models: dict[str, ModelClient] = dict(build_models(spec, (), locate))
    types, findings, failures = load_agent_types(spec, Path.cwd())
    if findings:
        raise ConfigurationError("; ".join(f"{dotted(at)}: {message}" for at, message in findings))
    if failures:  # a definition file that did not load: its own typed error, as a run sees it
        raise failures[0].error
    context = BuildContext(
        agent_types=types,
        type_models=build_type_models(spec, (), locate),
        session_store=InMemorySessionStore(),
        tool_runs={},
        scenario=blueprint.source,
    )
    return build_entry_agent(spec, models, context)


def case_of(scenario: LoadedScenario) -> dict[str, Any]:
    """A loaded scenario as a case dict that runs from any working directory.

    A relative ``agent_types_dir`` is relative to the scenario file, so it is made
    absolute here; the dict (and the YAML reproducer written from it) keeps it.
    """
    case = scenario.spec.model_dump(mode="json", exclude_unset=True)
    found = scenario.spec.types_dir()
    if found is not None:
        folder = str((scenario.path.parent / found.path).resolve())
        entry = case["agent_types_dir"]
        if isinstance(entry, dict):
            entry["path"] = folder
        else:
            case["agent_types_dir"] = folder
    return case


@dataclass
class CaseResult:
    """What running one case gave: the trace, outputs, the error, and every violation."""

    case: Mapping[str, Any]
    trace: Trace = field(default_factory=Trace)
    outputs: list[str | None] = field(default_factory=list)
    error: BaseException | None = None
    build_error: ConfigurationError | None = None
    agent: Agent | None = None
    violations: list[Violation] = field(default_factory=list)


def _built(
    case: Mapping[str, Any], source: LoadedScenario | None = None
) -> tuple[CaseResult, _Blueprint | None]:
    """A result holding the built agent, or the construction error and its verdict."""
    result = CaseResult(case)
    try:
        blueprint = _Blueprint.of(case, source)
        result.agent = _build(case, blueprint)
    except ConfigurationError as exc:
        result.build_error = exc
        result.violations = _check_build_error(case, exc)
        return result, None
    return result, blueprint


def _run(result: CaseResult, agent: Agent, fault: Fault | None, *, check: bool = True) -> None:
    """Run every turn of ``result.case`` with ``agent``; fill in the trace (and violations)."""
    case = result.case
    faulty = None if fault is None else FaultyRecorder(fault)
    sim = Simulation(
        seed=int(case.get("seed", 0)),
        wall_clock=False,
        observers=() if faulty is None else (faulty,),
    )
    messages = None
    try:
        session: str | None = None
        for turn in case["run"]:
            text = turn if isinstance(turn, str) else turn["input"]
            run = sim.run(agent, text, session=session)
            result.outputs.append(run.output)
            session, messages = run.session_id, run.messages
    except Exception as exc:
        result.error = exc
    finally:
        sim.close()  # cancels what a guard left running, so their end events are recorded
    result.trace = sim.trace if faulty is None else faulty.trace
    if check:
        result.violations = check_invariants(
            result.trace, agent=agent, error=result.error, messages=messages
        )


def check_case(
    case: Mapping[str, Any],
    *,
    fault: Callable[[], Fault] | None = None,
    determinism: bool = True,
    source: LoadedScenario | None = None,
) -> CaseResult:
    """Build and run every turn of ``case`` in one seeded Simulation; check the invariants
    and (``determinism``) that a second run gives the same trace.

    The case is validated once; the second run builds a fresh agent tree from it and
    its trace is only compared with the first (the other invariants are the first's).
    ``source`` is the scenario file ``case`` was read from (:func:`case_of`), if any.
    """
    result, blueprint = _built(case, source)
    if blueprint is None or result.agent is None:
        return result
    _run(result, result.agent, fault() if fault else None)
    if determinism:
        again = CaseResult(case)
        _run(again, _build(case, blueprint), fault() if fault else None, check=False)
        # repr(events) is a cheap exact comparison (types and key order show); only
        # when it differs does the JSON-lines comparison decide and say where.
        if repr(list(result.trace)) != repr(list(again.trace)):
            traces = iter((result.trace, again.trace))
            result.violations.extend(check_determinism(lambda: next(traces)))
    return result


def _check_build_error(case: Mapping[str, Any], exc: ConfigurationError) -> list[Violation]:
    """A construction error must be deserved: a real collision, prefix or bad name."""
    if _deserved(case, exc):
        return []
    return [
        Violation(
            Invariant.TERMINATION.value,
            f"construction failed without a reason in the case: {type(exc).__name__}: {exc}",
        )
    ]


def _deserved(case: Mapping[str, Any], exc: ConfigurationError) -> bool:
    if _expected_by_the_case(case, exc):
        return True
    agents: Mapping[str, Any] = case.get("agents", {})
    if isinstance(exc, ReservedPrefixError):
        return any(
            str(t).startswith("subagent_") for a in agents.values() for t in a.get("tools", ())
        )
    if isinstance(exc, DuplicateToolNameError):
        return any(_has_duplicate(a) for a in agents.values())
    if isinstance(exc, InvalidNameError):
        return any(
            not _EXPLICIT_TOOL_NAME.match(str(m.get("tool_name")).strip())
            for a in agents.values()
            for m in a.get("subagents", ())
            if isinstance(m, dict) and m.get("tool_name")
        )
    return False


def _expected_by_the_case(case: Mapping[str, Any], exc: ConfigurationError) -> bool:
    """A scenario file's ``expect.error`` names this construction error (type and message)."""
    expect = case.get("expect")
    wanted = expect.get("error") if isinstance(expect, Mapping) else None
    if not isinstance(wanted, Mapping):
        return False
    names = {cls.__name__ for cls in type(exc).__mro__}
    kind, match = wanted.get("type"), wanted.get("match")
    if kind is not None and kind not in names:
        return False
    if match is None:
        return True
    try:  # a pattern that takes too long cannot show the error was meant
        return search(str(match), str(exc))
    except (PatternTimeoutError, ValueError):  # ValueError: not a usable pattern
        return False


def _has_duplicate(agent: Mapping[str, Any]) -> bool:
    names = [str(t) for t in agent.get("tools", ())]
    for mount in agent.get("subagents", ()):
        if isinstance(mount, str):
            mount = {"agent": mount}
        explicit = (mount.get("tool_name") or "").strip()
        names.append(explicit or normalize_tool_name(mount.get("name") or mount["agent"]))
    return len(names) != len(set(names))
