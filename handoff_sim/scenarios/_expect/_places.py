"""Where a scenario writes expected values, in the order the check reads them.

Captures depend on that order: a value captured by one expectation can be referred
to by the ones checked after it. The order is each turn (its ``session_id``, then its
``output``), then ``expect.output``, ``expect.handoffs``, ``expect.trace`` and last
``expect.sessions``, each list in its written order.
"""

from __future__ import annotations

from typing import Literal

from handoff_sim.scenarios._schema import (
    ExpectSpec,
    MessageExpect,
    Place,
    ScenarioSpec,
    ScriptModelSpec,
    SessionExpect,
    StepSpec,
)

__all__ = [
    "GROUPS",
    "Finding",
    "Position",
    "RelPath",
    "Where",
    "expect_positions",
    "step_positions",
    "trace_base",
    "turn_positions",
]

RelPath = tuple[str | int, ...]
Finding = tuple[RelPath, str]
Where = Place | Literal["event"]
"""A pattern's place; ``event``: a field of a trace event pattern (a ``value`` place
whose type, enum and duration rules depend on the event type)."""
Position = tuple[RelPath, object, Where]
GROUPS = ("output", "handoffs", "trace", "sessions")
"""The parts of an ``expect`` block, in the order they are checked."""

_HANDOFF_TEXT = ("tool", "subagent", "output", "error")
_SESSION_TEXT = (
    "id",
    "title",
    "agent",
    "parent_session_id",
    "parent_agent",
    "root_session_id",
    "root_agent",
)
_MESSAGE_TEXT = ("content", "name", "tool_call_id")


def turn_positions(spec: ScenarioSpec) -> list[Position]:
    """Each turn's ``session_id`` and ``output`` expectations, turn by turn."""
    found: list[Position] = []
    for index, turn in enumerate(spec.turns()):
        if turn.expect is None:
            continue
        for key in ("session_id", "output"):
            if key in turn.expect.model_fields_set:
                found.append((("run", index, "expect", key), getattr(turn.expect, key), "text"))
    return found


def expect_positions(expect: ExpectSpec, at: RelPath) -> dict[str, list[Position]]:
    """The patterns of one ``expect`` block, by part (see :data:`GROUPS`)."""
    given = expect.model_fields_set
    groups: dict[str, list[Position]] = {name: [] for name in GROUPS}
    if "output" in given:
        groups["output"].append(((*at, "output"), expect.output, "text"))
    for index, handoff in enumerate(expect.handoffs or ()):
        for key in _HANDOFF_TEXT:
            if key in handoff.model_fields_set:
                path = (*at, "handoffs", index, key)
                groups["handoffs"].append((path, getattr(handoff, key), "text"))
    trace = expect.trace_spec()
    if trace is not None:
        base: RelPath = (
            (*at, "trace") if isinstance(expect.trace, list) else (*at, "trace", "events")
        )
        for index, pattern in enumerate(trace.events):
            for key, value in pattern.items():
                if key != "type":
                    groups["trace"].append(((*base, index, key), value, "event"))
    for index, session in enumerate(expect.sessions or ()):
        groups["sessions"] += _session_positions(session, (*at, "sessions", index))
    return groups


def trace_base(expect: ExpectSpec, at: RelPath) -> RelPath:
    """Where the event patterns are written: ``trace`` (the list shorthand) or ``trace.events``."""
    return (*at, "trace") if isinstance(expect.trace, list) else (*at, "trace", "events")


def _session_positions(session: SessionExpect, at: RelPath) -> list[Position]:
    found: list[Position] = [
        ((*at, key), getattr(session, key), "text")
        for key in _SESSION_TEXT
        if key in session.model_fields_set
    ]
    for index, message in enumerate(session.messages or ()):
        found += _message_positions(message, (*at, "messages", index))
    return found


def _message_positions(message: MessageExpect, at: RelPath) -> list[Position]:
    given = message.model_fields_set
    found: list[Position] = [
        ((*at, key), getattr(message, key), "text") for key in _MESSAGE_TEXT if key in given
    ]
    if "tool_calls" in given:
        found.append(((*at, "tool_calls"), message.tool_calls, "any"))
    return found


def step_positions(spec: ScenarioSpec) -> list[Position]:
    """The value patterns of script-step checks (tool descriptions, parameters, prompts)."""
    models: list[tuple[RelPath, object]] = [
        (("agents", name), agent.model) for name, agent in spec.agents.items()
    ]
    models += [(("agent_types", name), t.model) for name, t in spec.agent_types.items()]
    found: list[Position] = []
    for at, model in models:
        if not isinstance(model, ScriptModelSpec):
            continue
        for index, step in enumerate(model.script or ()):
            if isinstance(step, StepSpec) and step.expect is not None:
                found += _step_positions(step, (*at, "model", "script", index, "expect"))
    return found


def _step_positions(step: StepSpec, at: RelPath) -> list[Position]:
    expect = step.expect
    assert expect is not None
    found: list[Position] = []
    for name, text in (expect.tool_descriptions or {}).items():
        found.append(((*at, "tool_descriptions", name), text, "text"))
    for name, schema in (expect.tool_parameters or {}).items():
        found.append(((*at, "tool_parameters", name), schema, "any"))
    for key in ("system_prompt", "input"):
        if key in expect.model_fields_set:
            found.append(((*at, key), getattr(expect, key), "text"))
    return found
