"""The agent types of a scenario: declared inline or read from Markdown definition files.

Runs at load time, so a malformed definition file, an undefined type or a type
defined twice is reported at the line of the key that names it. What goes wrong while the
files themselves load (a missing directory, a malformed file not listed in
``skip_invalid``) is a :class:`LoadFailure`: an error a scenario may expect.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.scenarios._load._style_checks import Finding
from handoff_sim.scenarios._load._yaml import FieldPath
from handoff_sim.scenarios._schema import (
    AgentTypesDirSpec,
    AgentTypeSpec,
    DispatcherSpec,
    ScenarioSpec,
    SubAgentSpec,
)
from handoff_sim.styles.sophi import AgentDefinition, load_agent_definitions

__all__ = ["AgentTypes", "LoadFailure", "load_agent_types"]

AgentTypes = dict[str, AgentDefinition]
_DEFINITION_KEYS = ("description", "system_prompt", "allowed_tools", "model_name")


@dataclass(frozen=True, slots=True)
class LoadFailure:
    """An error raised while material a scenario refers to loads, at the key naming it.

    ``hint`` says how to avoid it; it is added when the failure is reported as a
    load problem, never to the error a scenario may expect.
    """

    at: FieldPath
    error: ConfigurationError
    hint: str = ""

    def finding(self) -> Finding:
        """The failure as a load problem at its key."""
        return self.at, f"{self.error} ({self.hint})" if self.hint else str(self.error)


def load_agent_types(
    spec: ScenarioSpec, base: Path
) -> tuple[AgentTypes, list[Finding], list[LoadFailure]]:
    """Every agent type by name (files first, then inline ones), what is wrong in the
    scenario, and what failed while its definition files loaded."""
    findings: list[Finding] = []
    failures: list[LoadFailure] = []
    loaded: AgentTypes = {}
    found_dir = spec.types_dir()
    if found_dir is not None:
        loaded = _load_dir(spec, found_dir, base, findings, failures)
    types = dict(loaded)
    for name, declared in spec.agent_types.items():
        at: FieldPath = ("agent_types", name)
        if name in loaded:
            extra = [k for k in _DEFINITION_KEYS if k in declared.model_fields_set]
            if extra:
                findings.append(
                    (
                        (*at, extra[0]),
                        f"agent type '{name}' is defined in {loaded[name].source}; "
                        "here only its model may be given",
                    )
                )
            continue
        definition = _inline(name, declared, at, findings)
        if definition is not None:
            types[name] = definition
    if not failures:  # else a type may be the one the failed file defines
        findings.extend(_references(spec, types))
    return types, findings, failures


def _inline(
    name: str, declared: AgentTypeSpec, at: FieldPath, findings: list[Finding]
) -> AgentDefinition | None:
    if declared.description is None:
        where = "a definition file in agent_types_dir"
        findings.append((at, f"agent type '{name}' needs a description (or {where})"))
        return None
    try:
        return AgentDefinition(
            name=name,
            description=declared.description,
            system_prompt=declared.system_prompt or declared.description,
            allowed_tools=tuple(declared.allowed_tools or ()),
            model=declared.model_name,
        )
    except ConfigurationError as exc:
        findings.append((at, str(exc)))
        return None


def _load_dir(
    spec: ScenarioSpec,
    found: AgentTypesDirSpec,
    base: Path,
    findings: list[Finding],
    failures: list[LoadFailure],
) -> AgentTypes:
    at: FieldPath = (
        ("agent_types_dir",)
        if isinstance(spec.agent_types_dir, str)
        else ("agent_types_dir", "path")
    )
    folder = base / found.path
    if not folder.is_dir():
        failures.append(LoadFailure(at, ConfigurationError(f"no such directory: {folder}")))
        return {}
    try:
        load = load_agent_definitions(folder, warn=False)
    except ConfigurationError as exc:  # a folder that cannot be listed
        failures.append(LoadFailure(at, exc))
        return {}
    failed = {Path(str(p.path)).name: p for p in load.problems}
    for file, problem in failed.items():
        if file not in found.skip_invalid:
            hint = f"list '{file}' under skip_invalid to skip it, or expect it with expect.error"
            failures.append(LoadFailure(at, problem, hint))
    for index, file in enumerate(found.skip_invalid):
        if file not in failed:
            findings.append(
                (
                    ("agent_types_dir", "skip_invalid", index),
                    f"'{file}' is listed as invalid, but it is not a malformed "
                    f"definition file in {folder}",
                )
            )
    return {d.name: d for d in load.definitions}


def _dispatchers(spec: ScenarioSpec) -> Iterator[tuple[FieldPath, DispatcherSpec]]:
    for name, agent in spec.agents.items():
        if agent.dispatcher is not None:
            yield ("agents", name, "dispatcher"), agent.dispatcher
        for index, mount in agent.entries():
            if not isinstance(mount, SubAgentSpec):
                yield ("agents", name, "subagents", index, "dispatcher"), mount.dispatcher


def _references(spec: ScenarioSpec, types: AgentTypes) -> Iterator[Finding]:
    declared = {*types, *spec.agent_types}  # a type already reported is not undefined too
    known = ", ".join(types) or "none defined"
    for at, dispatcher in _dispatchers(spec):
        seen: set[str] = set()
        for index, name in enumerate(dispatcher.agent_types):
            where: FieldPath = (*at, "agent_types", index)
            if name in seen:
                yield where, f"agent type '{name}' is listed twice"
            elif name not in declared:
                yield where, f"undefined agent type '{name}' (agent types: {known})"
            seen.add(name)
