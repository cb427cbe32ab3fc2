"""A recording made on pydantic-ai, run as a scenario on pydantic-ai: delegations as recorded.

The user's delegation tool is a function of its own parameters that runs another agent
and returns its output; a scenario's delegation takes ``task`` and answers with our
envelope. A replay checks each request against the recorded one, so the scenario's
tool must be called as the recorded one was and answer as it did: its one text
parameter is the one the recorded calls use (``{"query": ...}`` makes it ``query``),
the recorded arguments reach it unchanged, and it returns the sub-agent's output
itself. What the user's function did besides running the agent is not in the file.
"""

from __future__ import annotations

import inspect
import keyword
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.tools import Tool as PaiTool
from pydantic_ai.usage import UsageLimits

from handoff_sim._safe import JsonProblem, parse_json
from handoff_sim.adapters._pai_governed_tool import governed_tool
from handoff_sim.adapters._scenario_runtime import AgentPlan, MountPlan
from handoff_sim.scenarios import ScenarioSpec
from handoff_sim.scenarios._schema import ScriptModelSpec, StepSpec

__all__ = ["DEFAULT_PARAMETER", "recorded_delegation", "recorded_parameters"]

DEFAULT_PARAMETER = "task"
"""A recorded delegation's parameter when its calls do not name one (it was never called)."""


def _one_text_key(arguments: dict[str, Any] | str) -> str | None:
    """The key of arguments that are one JSON object of one text value, else None."""
    if isinstance(arguments, str):
        try:
            arguments = parse_json(arguments)
        except JsonProblem:
            return None
    if isinstance(arguments, dict) and len(arguments) == 1:
        key, value = next(iter(arguments.items()))
        if isinstance(value, str) and _parameter_name(key):
            return str(key)
    return None


def _parameter_name(key: object) -> bool:
    """Whether ``key`` can name a Python parameter (the delegation's signature needs one)."""
    return (
        isinstance(key, str) and key.isidentifier() and not keyword.iskeyword(key) and key != "ctx"
    )


def _calls(spec: ScenarioSpec, agent: str) -> list[tuple[str, dict[str, Any] | str]]:
    """Each tool call the agent's recorded script makes: its name and its arguments."""
    model = spec.agents[agent].model
    if not isinstance(model, ScriptModelSpec) or model.script is None:
        return []
    return [
        (call.name, call.arguments)
        for step in model.script
        if isinstance(step, StepSpec)
        for call in step.tool_calls or ()
    ]


def recorded_parameters(spec: ScenarioSpec) -> dict[tuple[str, str], str] | None:
    """For a recording made on pydantic-ai: (agent, tool) -> the parameter its recorded calls use.

    ``None`` for any other scenario. A tool whose recorded calls do not all use the same
    one text parameter is left out (it takes ``task``; pydantic-ai's validation answers
    the recorded calls then, as it would have answered the model).
    """
    recorded = spec.recorded
    if recorded is None or recorded.runtime != "pydantic-ai":
        return None
    found: dict[tuple[str, str], str | None] = {}
    for agent in spec.agents:
        for name, arguments in _calls(spec, agent):
            key, seen = _one_text_key(arguments), found.get((agent, name), "")
            found[(agent, name)] = key if seen in ("", key) else None
    return {where: key for where, key in found.items() if key}


def recorded_delegation(
    child: Agent[Any, Any],
    mount: MountPlan,
    plan: AgentPlan,
    limits: UsageLimits,
    parameter: str,
) -> PaiTool[Any]:
    """The delegation as the recorded run's tool: ``parameter: str`` in, the child's output
    out, under the parent's policy (``governed_tool``, without our envelope).

    pydantic-ai validates a call against the signature as it did the user's function, so
    a call without ``parameter`` is answered with pydantic-ai's own retry prompt.
    """

    async def delegate(ctx: RunContext[Any], **arguments: Any) -> Any:
        result = await child.run(str(arguments[parameter]), usage_limits=limits)
        return result.output

    delegate.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=RunContext[Any]
            ),
            inspect.Parameter(parameter, inspect.Parameter.KEYWORD_ONLY, annotation=str),
        ],
        return_annotation=Any,
    )
    delegate.__annotations__ = {"ctx": RunContext[Any], parameter: str, "return": Any}
    governed = governed_tool(policy=plan.policy, subagent=mount.name, fallback=plan.fallback)
    return PaiTool(
        governed(delegate),
        name=mount.tool_name,
        description=mount.description,
        takes_ctx=True,
        sequential=not plan.parallel,
    )
