"""Confirmation of risky calls: one batched policy call per model turn.

A call runs when its tier (for its real arguments) is SAFE, when its name is
granted, or when the confirmation policy approves it. Every call of one model
turn that needs approval goes to the policy in one batch; a refused call gets
``Error: Tool '<name>' execution denied by confirmation policy`` and never runs.

Inside a run the gate records what it asks: one ``confirmation_request`` event per
batch (each request with its tier) and, once the answer is known, one
``confirmation_decision`` event per request.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from handoff_sim._context import Frame, RunEnvironment, current_environment, current_frame
from handoff_sim._safe import describe_error
from handoff_sim._tools import ToolExecutor, ToolOutput, call_executor
from handoff_sim.events import (
    ConfirmationDecision,
    ConfirmationDecisionEvent,
    ConfirmationRequestEvent,
    RiskTier,
)
from handoff_sim.messages import ToolCall
from handoff_sim.styles.sophi._risk import RiskLevel

__all__ = [
    "ALLOW_ALL",
    "DENY_ALL",
    "Classifier",
    "ConfirmationGate",
    "ConfirmationPolicy",
    "ConfirmationRequest",
    "GatedExecutor",
    "denied_message",
]


@dataclass(frozen=True, slots=True)
class ConfirmationRequest:
    """One call awaiting approval: its id, tool, raw arguments and tier."""

    call_id: str
    tool_name: str
    arguments: str
    risk: RiskLevel


Decisions = Mapping[str, bool]
ConfirmationPolicy = Callable[[Sequence[ConfirmationRequest]], Decisions | Awaitable[Decisions]]
"""Takes one turn's batch of requests; returns ``{call_id: approved}`` (missing = refused)."""

Classifier = Callable[[ToolCall], RiskLevel | None]
"""The tier of a call, or None for a call the gate does not govern (or that cannot run)."""


def allow_all(requests: Sequence[ConfirmationRequest]) -> Decisions:
    """Approve every request."""
    return {r.call_id: True for r in requests}


def deny_all(requests: Sequence[ConfirmationRequest]) -> Decisions:
    """Refuse every request."""
    return {r.call_id: False for r in requests}


ALLOW_ALL: ConfirmationPolicy = allow_all
DENY_ALL: ConfirmationPolicy = deny_all


def denied_message(tool_name: str) -> str:
    """The tool result of a call the policy refused."""
    return f"Error: Tool '{tool_name}' execution denied by confirmation policy"


@dataclass(slots=True)
class _Round:
    """One turn's question to the policy, shared by the calls of that turn."""

    call_ids: frozenset[str]
    decisions: asyncio.Future[Decisions]
    waiters: int = 0

    async def wait(self) -> Decisions:
        """The policy's answer; the last waiter to be cancelled cancels the question too.

        The answer is shielded so one cancelled call does not take it from the
        others of its turn, but once no call waits for it, an async policy still
        running is cancelled and awaited, so no task outlives the run.
        """
        self.waiters += 1
        try:
            return await asyncio.shield(self.decisions)
        finally:
            self.waiters -= 1
            if self.waiters == 0 and not self.decisions.done():
                await _cancel_and_wait(self.decisions)


class ConfirmationGate:
    """Decides, for one agent's loop, whether a call may run.

    ``grants`` are trusted by name, whatever the arguments. ``pre_granted`` are
    the SAFE tools a delegation named in ``expected_tools``: they never let a call
    whose real arguments are riskier skip confirmation, so they are only recorded.
    The batch of one model turn is read from the calling agent's session: the
    last assistant message holds the turn's calls.
    """

    def __init__(
        self,
        policy: ConfirmationPolicy,
        classify: Classifier,
        *,
        grants: Iterable[str] = (),
        pre_granted: Iterable[str] = (),
    ) -> None:
        self.policy = policy
        self.classify = classify
        self.grants = frozenset(grants)
        self.pre_granted = frozenset(pre_granted)
        self._rounds: dict[str, _Round] = {}
        self._batches: dict[str, int] = {}

    def needs_approval(self, call: ToolCall) -> RiskLevel | None:
        """The call's tier if the policy must approve it, else None."""
        risk = self.classify(call)
        if risk is None or risk is RiskLevel.SAFE or call.name in self.grants:
            return None
        return risk

    async def allows(self, call: ToolCall) -> bool:
        """Whether ``call`` may run; asks the policy once per turn for every risky call."""
        if self.needs_approval(call) is None:
            return True
        frame = current_frame()
        key = frame.run_id if frame is not None else ""
        found = self._rounds.get(key)
        if found is None or call.id not in found.call_ids or found.decisions.cancelled():
            found = self._rounds[key] = self._ask(_round_of(call, frame))
        decisions = await found.wait()
        return decisions.get(call.id) is True

    def _ask(self, calls: Sequence[ToolCall]) -> _Round:
        requests = [
            ConfirmationRequest(c.id, c.name, c.arguments, risk)
            for c in calls
            if (risk := self.needs_approval(c)) is not None
        ]
        ids = frozenset(r.call_id for r in requests)
        record = _BatchRecord.start(self._batch_id(requests), requests)
        future: asyncio.Future[Decisions] = asyncio.get_running_loop().create_future()
        try:
            answer = self.policy(requests)
            if not inspect.isawaitable(answer):
                future.set_result(_check(answer))
        except Exception as exc:
            future.set_exception(exc)
        else:
            if inspect.isawaitable(answer):
                future = asyncio.ensure_future(_checked(answer))
        if record is not None:
            if future.done():
                record.decided(future)
            else:  # registered first, so the decisions are recorded before any waiter wakes
                future.add_done_callback(record.decided)
        return _Round(ids, future)

    def _batch_id(self, requests: Sequence[ConfirmationRequest]) -> str:
        """``confirmation:<first call id>``; a batch asked again gets ``#2``, ``#3``..."""
        base = f"confirmation:{requests[0].call_id}" if requests else "confirmation:"
        count = self._batches[base] = self._batches.get(base, 0) + 1
        return base if count == 1 else f"{base}#{count}"


def _tier(risk: RiskLevel) -> RiskTier:
    tiers: dict[RiskLevel, RiskTier] = {
        RiskLevel.SAFE: "safe",
        RiskLevel.CAUTION: "caution",
        RiskLevel.DESTRUCTIVE: "destructive",
    }
    return tiers[risk]


@dataclass(frozen=True, slots=True)
class _BatchRecord:
    """Where one batch's events go: the run and the agent frame that asked."""

    env: RunEnvironment
    frame: Frame
    batch_id: str
    requests: tuple[ConfirmationRequest, ...]

    @classmethod
    def start(cls, batch_id: str, requests: Sequence[ConfirmationRequest]) -> _BatchRecord | None:
        """Record the ``confirmation_request``; None outside a run (nothing to record in)."""
        env, frame = current_environment(), current_frame()
        if env is None or frame is None or not requests:
            return None
        record = cls(env, frame, batch_id, tuple(requests))
        env.publish(
            ConfirmationRequestEvent(
                *env.stamp(frame),
                batch_id=batch_id,
                call_ids=tuple(r.call_id for r in requests),
                tools=tuple(r.tool_name for r in requests),
                risks=tuple(_tier(r.risk) for r in requests),
            )
        )
        return record

    def _read(
        self, answer: asyncio.Future[Decisions]
    ) -> tuple[dict[str, ConfirmationDecision], str | None]:
        """Each request's decision, and the error when there was no usable answer."""
        if answer.cancelled():
            return {r.call_id: "cancelled" for r in self.requests}, None
        try:
            exc = answer.exception()
            if exc is None:
                given = answer.result()
                return {
                    r.call_id: "approved" if given.get(r.call_id) is True else "refused"
                    for r in self.requests
                }, None
        except Exception as raised:  # a mapping whose lookup raises
            exc = raised
        return {r.call_id: "error" for r in self.requests}, describe_error(exc)

    def decided(self, answer: asyncio.Future[Decisions]) -> None:
        """One ``confirmation_decision`` per request, from how the question ended."""
        decisions, error = self._read(answer)
        for request in self.requests:
            self.env.publish(
                ConfirmationDecisionEvent(
                    *self.env.stamp(self.frame),
                    batch_id=self.batch_id,
                    call_id=request.call_id,
                    tool=request.tool_name,
                    risk=_tier(request.risk),
                    decision=decisions[request.call_id],
                    error=error,
                )
            )


async def _cancel_and_wait(decisions: asyncio.Future[Decisions]) -> None:
    """Cancel an unanswered question and wait until the policy has stopped."""
    decisions.cancel()
    await asyncio.wait((decisions,))
    if not decisions.cancelled():
        decisions.exception()  # an answer nobody waits for any more: retrieved, not logged


async def _checked(answer: Awaitable[Decisions]) -> Decisions:
    return _check(await answer)


def _check(answer: object) -> Decisions:
    if not isinstance(answer, Mapping):
        raise TypeError(
            "a confirmation policy must return a mapping of call id to bool, "
            f"got {type(answer).__name__}"
        )
    return answer


def _round_of(call: ToolCall, frame: Frame | None) -> tuple[ToolCall, ...]:
    """The calls of the model turn ``call`` belongs to (just ``call`` outside a loop)."""
    if frame is not None:
        for message in reversed(frame.session.messages):
            if message.role == "assistant":
                if any(c.id == call.id for c in message.tool_calls):
                    return message.tool_calls
                break
    return (call,)


class GatedExecutor:
    """A primary executor that asks the gate before handing a call to ``inner``."""

    def __init__(self, inner: ToolExecutor, gate: ConfirmationGate) -> None:
        self.inner = inner
        self.gate = gate

    async def execute(self, call: ToolCall) -> str | ToolOutput:
        """Run ``call`` if the gate allows it, else the denial as an error result."""
        if not await self.gate.allows(call):
            return ToolOutput(denied_message(call.name), is_error=True)
        return await call_executor(self.inner, call)
