"""Script-step checks beyond ScriptedModel's own: offered tools, descriptions, messages.

They show what a model is told — the Flink description marker, a declared input schema,
the dispatcher's list of agent types, a sub-agent's scoped tools — and fail
the run with ``ScriptAssertionError`` naming the agent and step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from handoff_sim.errors import ScriptAssertionError
from handoff_sim.messages import ModelRequest
from handoff_sim.scenarios._expect import text_matches, value_matches
from handoff_sim.scenarios._schema import StepExpectSpec, StepSpec

__all__ = ["script_step"]

RequestCheck = Callable[[ModelRequest], None]


def script_step(step: str | StepSpec, agent: str, number: int) -> str | dict[str, Any]:
    """The ScriptedModel step for ``step``, with a ``check`` for the extra expectations."""
    if isinstance(step, str):
        return step
    built = step.as_step()
    expect = step.expect
    if expect is not None and set(expect.model_fields_set) - StepExpectSpec.NATIVE:
        built["check"] = _checker(expect, f"agent {agent!r}, script step {number}")
    return built


def _checker(expect: StepExpectSpec, where: str) -> RequestCheck:
    def check(request: ModelRequest) -> None:
        problems = list(_problems(expect, request))
        if problems:
            raise ScriptAssertionError(f"{where}: " + "; ".join(problems))

    return check


def _text(expected: object) -> str:
    pattern = getattr(expected, "match", None)
    if isinstance(expected, dict) and set(expected) == {"match"}:
        pattern = expected["match"]
    return f"/{pattern}/" if isinstance(pattern, str) else repr(expected)


def _problems(expect: StepExpectSpec, request: ModelRequest) -> Iterator[str]:
    offered = {t.name: t for t in request.tools}
    if expect.tools is not None and list(request.tool_names) != expect.tools:
        yield f"expected tools {expect.tools}, offered {list(request.tool_names)}"
    for name, wanted in (expect.tool_descriptions or {}).items():
        spec = offered.get(name)
        if spec is None:
            yield f"tool {name!r} not offered (offered {list(request.tool_names)})"
        elif not text_matches(wanted, spec.description):
            yield f"tool {name!r} description is {spec.description!r}, expected {_text(wanted)}"
    for name, schema in (expect.tool_parameters or {}).items():
        spec = offered.get(name)
        if spec is None:
            yield f"tool {name!r} not offered (offered {list(request.tool_names)})"
        elif not value_matches(schema, dict(spec.parameters)):
            yield f"tool {name!r} parameters are {dict(spec.parameters)!r}, expected {schema!r}"
    yield from _message_problems(expect, request)


def _message_problems(expect: StepExpectSpec, request: ModelRequest) -> Iterator[str]:
    roles = [m.role for m in request.messages]
    if expect.message_roles is not None and roles != expect.message_roles:
        yield f"message roles are {roles}, expected {expect.message_roles}"
    if "system_prompt" in expect.model_fields_set:
        system = next((m.content for m in request.messages if m.role == "system"), None)
        if not text_matches(expect.system_prompt, system):
            yield f"system prompt is {system!r}, expected {_text(expect.system_prompt)}"
    if "input" in expect.model_fields_set:
        users = [m.content for m in request.messages if m.role == "user"]
        last = users[-1] if users else None
        if not text_matches(expect.input, last):
            yield f"user input is {last!r}, expected {_text(expect.input)}"
    if expect.model is not None and request.model != expect.model:
        yield f"model is {request.model!r}, expected {expect.model!r}"
