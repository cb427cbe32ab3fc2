"""``governed(...)``: the framework-neutral half, a sub-agent mount on our own executor.

A framework delegation (an agent used as a tool) is mounted the way delegation styles
mount: a :class:`~handoff_sim.SubAgent` whose ``target`` runs the
framework's delegation once per attempt. The runtime's
:class:`~handoff_sim.subagents.HandoffExecutor` then applies the policy with
its own code: admission (allow/deny lists, depth), the input filter, attempts with
a per-attempt timeout that cancels the attempt, ``FailureAction`` and the
``handoff unavailable`` fallback, with the same events and messages as our runtime.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, cast

from handoff_sim._context import (
    Frame,
    RunEnvironment,
    current_environment,
    current_frame,
    use_environment,
    use_frame,
)
from handoff_sim._errors._run import UnknownToolError
from handoff_sim._safe import JsonProblem, describe_error, parse_json
from handoff_sim._sessions import Session
from handoff_sim._tools import ToolOutput
from handoff_sim.adapters._capture import Adoption, adopting
from handoff_sim.adapters._recording import RunRecord, recorder_for
from handoff_sim.messages import ToolCall
from handoff_sim.subagents import HandoffExecutor
from handoff_sim.subagents._definition import Refusal, SubAgent
from handoff_sim.subagents._input import envelope, resolve_input
from handoff_sim.subagents._policy import HandoffPolicy, SessionMode

if TYPE_CHECKING:
    from handoff_sim._agent import Agent

__all__ = [
    "Attempt",
    "Fallback",
    "FrameworkMount",
    "Governor",
    "NoPrimary",
    "TransferMount",
    "arguments_problem",
]

Attempt = Callable[[ToolCall], Awaitable[str | None]]
"""Run the framework's delegation once for a (filtered) call; the sub-agent's final text."""

Fallback = Callable[[ToolCall], "str | Awaitable[str]"]
"""Serve a call the policy sent to the primary executor (``FALLBACK_TO_PRIMARY``)."""


def arguments_problem(call: ToolCall) -> str | None:
    """Arguments that are not a JSON object are refused before any handoff, as our loop does."""
    try:
        value = parse_json(call.arguments)
    except JsonProblem as exc:
        deep = " (these are nested too deeply)" if exc.too_deep else ""
        return f"{call.name} arguments must be a JSON object{deep}"
    return None if isinstance(value, dict) else f"{call.name} arguments must be a JSON object"


class _Named:
    """What the executor reads of a target outside an attempt: its name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _AttemptTarget(_Named):
    """Stands in for an :class:`~handoff_sim.Agent` as the target of one call."""

    __slots__ = ("attempt", "call", "run_name")

    def __init__(self, name: str, call: ToolCall, attempt: Attempt, run_name: str) -> None:
        super().__init__(name)
        self.call = call
        self.attempt = attempt
        self.run_name = run_name

    def run_input(self, user_input: str) -> str | None:
        """The input the run's ``run_start`` shows (None: the framework run says it)."""
        return user_input

    def attempting(self, record: RunRecord) -> AbstractContextManager[object]:
        """The context the framework run starts in: it adopts ``record`` as its run."""
        return adopting(Adoption(record))

    async def run_as_subagent(
        self, user_input: str, session: Session, *, depth: int, handoff_id: str
    ) -> tuple[str | None, int]:
        """One attempt: the framework run, recorded as the sub-agent's run at ``depth``."""
        env, parent = current_environment(), current_frame()
        assert env is not None, "run by the handoff executor"
        assert parent is not None, "run by the handoff executor"
        recorder = recorder_for(env)
        record = recorder.open_run(
            self.run_name,
            depth=depth,
            parent_run_id=parent.run_id,
            handoff_id=handoff_id,
            session=session,
            input=self.run_input(user_input),
        )
        try:
            with use_frame(record.frame), self.attempting(record):
                output = await self.attempt(self.call)
        except asyncio.CancelledError:
            recorder.close_run(record, "cancelled")
            raise
        except BaseException as exc:
            recorder.close_run(record, "failed", error=describe_error(exc))
            raise
        record.output = output
        recorder.close_run(record, "completed")
        return output, record.steps


class FrameworkMount(SubAgent):
    """A framework delegation mounted as one sub-agent tool of our executor."""

    __slots__ = ("agent_name", "attempt", "envelope")
    mounts_stand_in = True  # target() stands in for the framework's agent per call

    def __init__(
        self,
        name: str,
        description: str,
        attempt: Attempt,
        *,
        tool_name: str,
        envelope: bool = False,
        agent_name: str | None = None,
    ) -> None:
        super().__init__(
            name,
            description,
            agent=cast("Agent", _Named(name)),
            tool_name=tool_name,
            session_mode=SessionMode.NEW_SESSION,
        )
        self.attempt = attempt
        self.envelope = envelope
        self.agent_name = agent_name or name

    def target(self, call: ToolCall) -> tuple[Agent, str]:
        """A stand-in that runs the framework delegation for ``call``, and its input text."""
        stand_in = _AttemptTarget(self.name, call, self.attempt, self.agent_name)
        return cast("Agent", stand_in), resolve_input(call.arguments)

    def result(self, call: ToolCall, output: str | None, steps: int) -> str:
        """The framework's own result (the final text), or our JSON envelope if asked."""
        if self.envelope:
            return envelope(self.name, call.name, output, steps)
        return output or ""


class _FallbackExecutor:
    """The primary executor of a governed delegation: the fallback tool, if one is given."""

    def __init__(self, fallback: Fallback | None) -> None:
        self.fallback = fallback

    async def execute(self, call: ToolCall) -> str:
        if self.fallback is None:
            raise UnknownToolError(call.name)
        result = self.fallback(call)
        if inspect.isawaitable(result):
            result = await result
        return str(result)


class Governor:
    """Runs one governed delegation call through the executor, in the right run context."""

    def __init__(
        self, mount: FrameworkMount, policy: HandoffPolicy, fallback: Fallback | None
    ) -> None:
        self.mount = mount
        self.policy = policy
        self.executor = HandoffExecutor(
            {mount.tool_name: mount}, _FallbackExecutor(fallback), policy
        )

    async def invoke(self, call: ToolCall, caller: str) -> ToolOutput:
        """The tool result of ``call`` made by agent ``caller``; denial under FAIL raises.

        Inside a recorded run the handoff is one more event of it, at the caller's
        depth; outside, it runs in a private environment (its events are not kept)
        with the caller at depth 0.
        """
        problem = arguments_problem(call)
        if problem is not None:
            return ToolOutput(problem, is_error=True)
        env = current_environment() or RunEnvironment()
        frame = current_frame() or Frame(
            caller, 0, env.next_run_id(), Session(id=env.new_id("session"), agent=caller)
        )
        with use_environment(env), use_frame(frame):
            result = await self.executor.execute(call)
        return result if isinstance(result, ToolOutput) else ToolOutput(result)


async def _no_attempt(call: ToolCall) -> str | None:
    raise AssertionError("a transfer is denied before any attempt")  # pragma: no cover


class TransferMount(FrameworkMount):
    """The executor's view of one transfer tool: it can only be refused (a transfer has no
    attempt to run), so its admission gets the executor's own denial events and messages."""

    __slots__ = ("refusal",)

    def __init__(self, tool: str, target: str, refusal: Refusal | None) -> None:
        super().__init__(target, "", _no_attempt, tool_name=tool, agent_name=target)
        self.refusal = refusal

    async def refuse(self, call: ToolCall, depth: int) -> Refusal | None:
        return self.refusal


class NoPrimary:
    """The primary executor of a transfer's admission: nothing serves a transfer."""

    def execute(self, call: ToolCall) -> str:
        raise UnknownToolError(call.name)
