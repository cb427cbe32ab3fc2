"""Checks pydantic cannot make alone: references, cycles, event patterns, unique names."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from handoff_sim.events import EVENT_TYPES
from handoff_sim.scenarios._errors import Problem
from handoff_sim.scenarios._expect import expect_findings
from handoff_sim.scenarios._load._clock_checks import real_clock_findings
from handoff_sim.scenarios._load._style_checks import style_findings
from handoff_sim.scenarios._load._yaml import FieldPath, SourceMap, dotted
from handoff_sim.scenarios._schema import (
    ScenarioSpec,
    SubAgentSpec,
    VariantSpec,
)

__all__ = ["check_scenario", "event_fields", "locate"]

Finding = tuple[FieldPath, str]


def event_fields(event_type: str) -> list[str]:
    """The fields a pattern may name for ``event_type`` (``type`` included)."""
    return ["type", *EVENT_TYPES[event_type].__struct_fields__]


def check_scenario(
    spec: ScenarioSpec, source: SourceMap, prefix: FieldPath, path: str
) -> list[Problem]:
    """Every cross-reference problem of one validated scenario, located."""
    findings = [
        *_references(spec),
        *_cycles(spec),
        *style_findings(spec),
        *real_clock_findings(spec),
        *expect_findings(spec),
        *_matrix(spec),
    ]
    return locate(findings, source, prefix, path)


def locate(
    findings: list[Finding], source: SourceMap, prefix: FieldPath, path: str
) -> list[Problem]:
    """Findings (paths relative to one scenario) as Problems at their line and column."""
    problems = []
    for rel, message in findings:
        field = (*prefix, *rel)
        line, column = source.position(field)
        problems.append(Problem(path, line, column, dotted(field), message))
    return problems


def _references(spec: ScenarioSpec) -> Iterator[Finding]:
    agents = list(spec.agents)
    if spec.entry is not None and spec.entry not in spec.agents:
        yield ("entry",), f"undefined agent '{spec.entry}' (agents: {', '.join(agents)})"
    for name, agent in spec.agents.items():
        for index, tool in enumerate(agent.tools):
            if tool not in spec.tools:
                known = ", ".join(spec.tools) or "none defined"
                yield ("agents", name, "tools", index), f"undefined tool '{tool}' (tools: {known})"
        for index, mount in agent.entries():
            if isinstance(mount, SubAgentSpec) and mount.agent not in spec.agents:
                at: FieldPath = ("agents", name, "subagents", index)
                if not isinstance(agent.subagents[index], str):
                    at = (*at, "agent")
                yield at, f"undefined agent '{mount.agent}' (agents: {', '.join(agents)})"


def _cycles(spec: ScenarioSpec) -> Iterator[Finding]:
    """A sub-agent chain that comes back to an agent on it would recurse forever."""
    state: dict[str, int] = {}  # 1 = on the current chain, 2 = done
    found: list[Finding] = []
    for name in spec.agents:
        if name not in state:
            _visit(spec, name, [], state, found)
    yield from found


def _visit(
    spec: ScenarioSpec, name: str, chain: list[str], state: dict[str, int], found: list[Finding]
) -> None:
    """Walk down from ``name``; a module function, not a closure calling itself, which
    would leave a reference cycle per loaded file for the garbage collector."""
    state[name] = 1
    agent = spec.agents[name]
    for index, mount in agent.entries():
        if not isinstance(mount, SubAgentSpec) or mount.agent not in spec.agents:
            continue
        child = mount.agent
        if state.get(child) == 1:
            loop = [*chain[chain.index(child) :], name, child] if child in chain else [name, child]
            at: FieldPath = ("agents", name, "subagents", index)
            if not isinstance(agent.subagents[index], str):
                at = (*at, "agent")
            found.append((at, f"sub-agent cycle: {' -> '.join(loop)}"))
        elif child not in state:
            _visit(spec, child, [*chain, name], state, found)
    state[name] = 2


def _matrix(spec: ScenarioSpec) -> Iterator[Finding]:
    seen: set[str] = set()
    for index, variant in enumerate(spec.matrix or ()):
        if variant.id in seen:
            yield ("matrix", index, "id"), f"duplicate variant id '{variant.id}'"
        seen.add(variant.id)
        for agent in variant.policies:
            if agent not in spec.agents:
                yield (
                    ("matrix", index, "policies", agent),
                    f"undefined agent '{agent}' (agents: {', '.join(spec.agents)})",
                )
        yield from _unset_findings(spec, variant, ("matrix", index, "unset"))


def _unset_findings(spec: ScenarioSpec, variant: VariantSpec, at: FieldPath) -> Iterator[Finding]:
    """``unset`` names keys of ``expect`` that the scenario sets, each once, none overridden."""
    allowed = VariantSpec.unset_keys()
    overridden = variant.expect.model_fields_set if variant.expect is not None else set()
    seen: set[str] = set()
    for index, key in enumerate(variant.unset):
        name = key.removeprefix("expect.")
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f"; allowed: {', '.join(allowed)}"
            yield (*at, index), f"cannot unset '{key}'{hint}"
        elif key in seen:
            yield (*at, index), f"'{key}' is listed twice"
        elif name in overridden:
            yield (*at, index), f"'{key}' is also given under this variant's expect: keep one"
        elif name not in spec.expect.model_fields_set:
            yield (*at, index), f"the scenario's expect has no '{name}': nothing to unset"
        seen.add(key)
