"""``governed_tool``: our handoff policy on the user's own pydantic-ai delegation tool.

pydantic-ai users delegate through their own tool functions, which run another agent
with ``deps=ctx.deps, usage=ctx.usage``. ``governed_tool`` wraps such a function and
keeps everything of it (signature, deps, usage accounting, return value): each call
becomes a handoff whose attempts each run the whole function body, under the policy.
The first agent run inside the body is the handoff's child run in the trace.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, get_type_hints, overload

from pydantic import TypeAdapter
from pydantic_ai import RunContext
from pydantic_core import to_json

from handoff_sim._context import current_frame
from handoff_sim._safe import parse_json
from handoff_sim.adapters._capture import ToolInFlight, adopting, clearing_tool, current_tool
from handoff_sim.adapters._errors import GovernanceError
from handoff_sim.adapters._governed import Fallback, Governor, _AttemptTarget
from handoff_sim.adapters._pai_capture import NamedByRun
from handoff_sim.adapters._pai_results import (
    CallOutcome,
    PydanticAIMount,
    call_outcome,
    framework_text,
    new_outcome,
)
from handoff_sim.adapters._recording import RunRecord
from handoff_sim.messages import ToolCall
from handoff_sim.subagents._policy import HandoffPolicy

if TYPE_CHECKING:
    from handoff_sim._agent import Agent

__all__ = ["governed_tool"]

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


class _BodyTarget(_AttemptTarget):
    """One attempt of a governed tool: the function body, recorded as the sub-agent's run.

    The run's ``run_start`` waits for the delegate's first model call (its prompt is
    the run's input) and the run is named after the pydantic-ai agent the body runs.
    """

    __slots__ = ()

    def run_input(self, user_input: str) -> str | None:
        """None: the delegate's first prompt becomes the run's input."""
        return None

    @contextmanager
    def attempting(self, record: RunRecord) -> Iterator[None]:
        """The body's first agent run adopts ``record``, named after that agent, with no
        tool call of the parent's in flight."""
        with adopting(NamedByRun(record)), clearing_tool():
            yield


class _BodyMount(PydanticAIMount):
    """A governed tool function on our executor: each attempt runs its body."""

    def target(self, call: ToolCall) -> tuple[Agent, str]:
        stand_in = _BodyTarget(self.name, call, self.attempt, self.agent_name)
        return stand_in, call.arguments  # type: ignore[return-value]  # stands in per call


class _GovernedFunction:
    """The policy, and one governor per tool name, of one wrapped tool function."""

    def __init__(
        self,
        function: Callable[..., Awaitable[Any]],
        policy: HandoffPolicy,
        subagent: str | None,
        fallback: Fallback | None,
        envelope: bool,
    ) -> None:
        self.function = function
        self.signature = inspect.signature(function)
        self.policy = policy
        self.subagent = subagent
        self.fallback = fallback
        self.envelope = envelope
        self.governors: dict[str, tuple[Governor, PydanticAIMount]] = {}

    def governor(self, tool_name: str) -> tuple[Governor, PydanticAIMount]:
        found = self.governors.get(tool_name)
        if found is None:
            name = self.subagent or tool_name
            mount = _BodyMount(name, "", self.attempt, tool_name=tool_name, envelope=self.envelope)
            found = self.governors[tool_name] = (
                Governor(mount, self.policy, self.fallback),
                mount,
            )
        return found

    async def attempt(self, call: ToolCall) -> str | None:
        """Run the function body once, with the (possibly filtered) call's arguments."""
        outcome = call_outcome()
        args, kwargs = self._arguments(call, outcome)
        value = await self.function(*args, **kwargs)
        outcome.value = value
        return None if value is None else framework_text(value)

    def _arguments(
        self, call: ToolCall, outcome: CallOutcome
    ) -> tuple[tuple[object, ...], dict[str, object]]:
        """The body's arguments: the tool's own, or the input filter's, validated by type."""
        if call.arguments == outcome.arguments:
            return outcome.args, outcome.kwargs
        values = parse_json(call.arguments)
        assert isinstance(values, dict), "refused before any handoff otherwise"
        hints = get_type_hints(self.function)
        kwargs = {k: TypeAdapter(hints.get(k, Any)).validate_python(v) for k, v in values.items()}
        context = outcome.args[:1] if _context_of(outcome.args) is not None else ()
        return context, kwargs

    def arguments_of(
        self, args: tuple[object, ...], kwargs: dict[str, object], tool: ToolInFlight | None
    ) -> str:
        """The call's arguments as JSON: the model's own when the capture saw them."""
        if tool is not None and tool.slot is not None:
            return tool.slot.call.arguments
        bound = self.signature.bind(*args, **kwargs).arguments
        if _context_of(args) is not None:
            bound.pop(next(iter(self.signature.parameters)))
        return to_json(bound).decode()

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        ctx, tool = _context_of(args), current_tool()
        tool_name = (ctx.tool_name if ctx else None) or (tool.name if tool else None)
        tool_name = tool_name or self.function.__name__
        governor, mount = self.governor(tool_name)
        arguments = self.arguments_of(args, kwargs, tool)
        raw_id = tool.slot.call.id if tool is not None and tool.slot is not None else None
        call = ToolCall(
            raw_id or (ctx.tool_call_id if ctx else None) or tool_name, tool_name, arguments
        )
        with new_outcome(args, kwargs, arguments) as outcome:
            result = await governor.invoke(call, _caller(ctx))
        if result.is_error and tool is not None:
            tool.failed = result.content
        return mount.deliver(result, outcome)


def _context_of(args: tuple[object, ...]) -> RunContext[Any] | None:
    """The run context a ``@agent.tool`` function gets first (``tool_plain`` gets none)."""
    return args[0] if args and isinstance(args[0], RunContext) else None


def _caller(ctx: RunContext[Any] | None) -> str:
    if ctx is not None and ctx.agent is not None and ctx.agent.name:
        return ctx.agent.name
    frame = current_frame()
    return frame.agent if frame is not None else "agent"


@overload
def governed_tool(function: F, /) -> F: ...


@overload
def governed_tool(
    *,
    policy: HandoffPolicy | None = None,
    subagent: str | None = None,
    fallback: Fallback | None = None,
    envelope: bool = False,
) -> Callable[[F], F]: ...


def governed_tool(
    function: F | None = None,
    /,
    *,
    policy: HandoffPolicy | None = None,
    subagent: str | None = None,
    fallback: Fallback | None = None,
    envelope: bool = False,
) -> F | Callable[[F], F]:
    """Put a :class:`~handoff_sim.HandoffPolicy` on your own delegation tool function.

    ::

        @joke_selection_agent.tool
        @governed_tool(policy=HandoffPolicy(timeout=30, max_retries=2))
        async def joke_factory(ctx: RunContext[None], count: int) -> list[str]:
            r = await joke_generation_agent.run(f"Please generate {count} jokes.", usage=ctx.usage)
            return r.output

    Goes under ``@agent.tool`` / ``@agent.tool_plain`` (or into ``Tool(...)``): the
    function keeps its signature, so pydantic-ai builds the same tool from it. Each
    call is a handoff through the tool's name; each attempt runs the whole body
    (deps, ``ctx.usage`` and all), bounded by ``timeout`` and cancelled when it runs
    out. The first agent run inside the body is the handoff's child run.
    ``subagent`` is the sub-agent's name in the handoff (default: the tool name).
    """
    chosen = policy or HandoffPolicy()
    if not isinstance(chosen, HandoffPolicy):
        raise GovernanceError(f"governed_tool(): policy must be a HandoffPolicy, got {policy!r}")

    def decorate(fn: F) -> F:
        if not inspect.iscoroutinefunction(fn):
            raise GovernanceError(
                f"governed_tool() wraps an async def tool function (each attempt is awaited "
                f"and cancelled at its timeout); {getattr(fn, '__name__', fn)!r} is not one"
            )
        governed = _GovernedFunction(fn, chosen, subagent, fallback, envelope)

        @functools.wraps(fn)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            return await governed(*args, **kwargs)

        return wrapper  # type: ignore[return-value]  # same signature, through __wrapped__

    return decorate if function is None else decorate(function)
