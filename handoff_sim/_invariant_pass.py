"""One pass over a trace's events, checking what each event can break (see ``invariants``).

Each ``_on_<type>`` method checks what its event type can break, against the state the
earlier events left; which start an end closes comes from the trace's span model, and
what it leaves open is reported by ``finish``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

from handoff_sim._spans import AttemptSpan, HandoffSpan, RunSpan, Spans, ToolCallSpan, build_spans
from handoff_sim._tools import ToolSetExecutor
from handoff_sim.events import (
    DENIAL_REASONS,
    EVENT_TYPES,
    ConfirmationDecisionEvent,
    ConfirmationRequestEvent,
    Event,
    HandoffAttemptEndEvent,
    HandoffAttemptStartEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    ModelRequestEvent,
    ModelResponseEvent,
    RunEndEvent,
    RunStartEvent,
    ToolEndEvent,
    ToolStartEvent,
)

if TYPE_CHECKING:
    from handoff_sim._agent import Agent
    from handoff_sim.subagents._policy import HandoffPolicy

__all__ = ["Checker", "Invariant", "Violation"]

_HANDLED = tuple(EVENT_TYPES)
_TIME_EPSILON_MS = 0.0011  # durations are whole microseconds; timeouts round to one


class Invariant(StrEnum):
    """The names violations are filed under."""

    BALANCE = "balance"
    DEPTH_BOUND = "depth_bound"
    ATTEMPT_BOUND = "attempt_bound"
    TIMEOUT_BOUND = "timeout_bound"
    DENIED_NOT_EXECUTED = "denied_not_executed"
    TOOL_SCOPE = "tool_scope"
    TERMINATION = "termination"
    CALL_ORDER = "call_order"
    DETERMINISM = "determinism"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant: which, what happened, and the event where it showed."""

    invariant: str
    message: str
    event_seq: int | None = None

    def __str__(self) -> str:
        where = f" (event seq {self.event_seq})" if self.event_seq is not None else ""
        return f"[{self.invariant}] {self.message}{where}"


@dataclass(slots=True)
class _Turn:
    """The calls one model response asked for, and how far their starts/ends got."""

    step: int
    calls: list[str]
    started: int = 0
    ended: set[str] = field(default_factory=set)


class Checker:
    """One pass over the events; each ``_on_<type>`` method checks what its event can break."""

    def __init__(self, agent: Agent | None, policy: HandoffPolicy | None) -> None:
        self.root = agent
        self.policy = policy
        self.violations: list[Violation] = []
        self.agents: dict[str, Agent | None] = {}
        self.by_name = _agents_by_name(agent)
        self.run_depth: dict[str, int] = {}
        self.steps: dict[str, int] = {}
        self.turns: dict[str, _Turn] = {}
        self.spans = Spans()
        self.index = 0
        self.current: Any = None  # the span of the event being checked (the model's typing)
        self.child_sessions: dict[tuple[str, str], str] = {}
        self.asked: dict[tuple[str, str], tuple[ConfirmationRequestEvent, dict[str, str]]] = {}
        self.refused: set[tuple[str, str]] = set()

    def add(self, invariant: Invariant, message: str, event: Event | None = None) -> None:
        self.violations.append(
            Violation(invariant.value, message, None if event is None else event.seq)
        )

    # -- configuration lookups -------------------------------------------------------------

    def agent_of(self, run_id: str) -> Agent | None:
        return self.agents.get(run_id)

    def policy_of(self, run_id: str) -> HandoffPolicy | None:
        agent = self.agent_of(run_id)
        return agent.handoff_policy if agent is not None else self.policy

    def _resolve(self, event: RunStartEvent) -> Agent | None:
        parent_id = event.parent_run_id
        if parent_id is None or parent_id not in self.run_depth:
            root = self.root
            return root if root is not None and root.name == event.agent else None
        parent = self.agent_of(parent_id)
        tool = self.child_sessions.get((parent_id, event.session_id))
        if parent is not None and tool is not None:
            for mount in parent.subagents:
                target = _fixed_target(mount)
                if mount.tool_name == tool and target is not None and target.name == event.agent:
                    return target
        candidates = self.by_name.get(event.agent, [])
        return candidates[0] if len(candidates) == 1 else None

    # -- runs and model turns ----------------------------------------------------------------

    def _on_run_start(self, e: RunStartEvent) -> None:
        run: RunSpan = self.current
        if run.again:
            self.add(Invariant.BALANCE, f"run {e.run_id} started twice", e)
        self.agents[e.run_id] = self._resolve(e)
        self.run_depth[e.run_id] = e.depth
        self.steps[e.run_id] = 0

    def _on_run_end(self, e: RunEndEvent) -> None:
        run: RunSpan = self.current
        if run.start is None:
            self.add(Invariant.BALANCE, f"run_end of {e.run_id} without an open run_start", e)
        if e.status == "completed":
            self._check_barrier(e.run_id, e)

    def _on_model_request(self, e: ModelRequestEvent) -> None:
        self._check_barrier(e.run_id, e)
        self.steps[e.run_id] = self.steps.get(e.run_id, 0) + 1
        agent = self.agent_of(e.run_id)
        if agent is not None and self.steps[e.run_id] > agent.max_steps:
            self.add(
                Invariant.TERMINATION,
                f"agent {agent.name!r} made model call {self.steps[e.run_id]} in {e.run_id}, "
                f"past max_steps={agent.max_steps}",
                e,
            )

    def _on_model_response(self, e: ModelResponseEvent) -> None:
        if e.tool_calls:
            self.turns[e.run_id] = _Turn(e.step, list(e.tool_calls))

    def _check_barrier(self, run_id: str, event: Event) -> None:
        """Fork-join: every call of the previous turn ended before the run goes on."""
        turn = self.turns.pop(run_id, None)
        if turn is None:
            return
        missing = [c for c in turn.calls if c not in turn.ended]
        if missing:
            self.add(
                Invariant.CALL_ORDER,
                f"{run_id} went on after step {turn.step} before calls {missing} ended",
                event,
            )

    # -- tool calls -------------------------------------------------------------------------

    def _on_tool_start(self, e: ToolStartEvent) -> None:
        call: ToolCallSpan = self.current
        if call.again:
            self.add(Invariant.BALANCE, f"tool call {e.call_id} in {e.run_id} started twice", e)
        turn = self.turns.get(e.run_id)
        label = f"{e.call_id}:{e.tool}"
        if turn is None or turn.started >= len(turn.calls) or turn.calls[turn.started] != label:
            expected = turn.calls[turn.started] if turn and turn.started < len(turn.calls) else None
            self.add(
                Invariant.CALL_ORDER,
                f"tool call {label} started in {e.run_id}, expected {expected} in call order",
                e,
            )
        elif turn is not None:
            turn.started += 1

    def _on_tool_end(self, e: ToolEndEvent) -> None:
        call: ToolCallSpan = self.current
        if call.start is None:
            self.add(
                Invariant.BALANCE, f"tool_end of {e.call_id} in {e.run_id} without tool_start", e
            )
        turn = self.turns.get(e.run_id)
        if turn is not None:
            turn.ended.add(f"{e.call_id}:{e.tool}")
        if e.status == "ok" and (e.run_id, e.call_id) in self.refused:
            self.add(
                Invariant.DENIED_NOT_EXECUTED,
                f"tool call {e.call_id} ({e.tool}) ran although its confirmation was refused",
                e,
            )
        agent = self.agent_of(e.run_id)
        scope = _scope(agent) if agent is not None else None
        if e.status == "ok" and scope is not None and e.tool not in scope:
            self.add(
                Invariant.TOOL_SCOPE,
                f"tool {e.tool!r} ran in {e.run_id} of agent {e.agent!r}, which was not given it",
                e,
            )

    # -- handoffs ---------------------------------------------------------------------------

    def _on_handoff_start(self, e: HandoffStartEvent) -> None:
        handoff: HandoffSpan = self.current
        if handoff.again:
            self.add(Invariant.BALANCE, f"{e.handoff_id} in {e.run_id} started twice", e)
        if e.session_id is not None:
            self.child_sessions[(e.run_id, e.session_id)] = e.tool
        parent_depth = self.run_depth.get(e.run_id)
        if parent_depth is not None and e.depth != parent_depth + 1:
            self.add(
                Invariant.DEPTH_BOUND,
                f"{e.handoff_id} has depth {e.depth} but its caller runs at depth {parent_depth}",
                e,
            )
        agent = self.agent_of(e.run_id)
        if agent is not None and e.tool not in {m.tool_name for m in agent.subagents}:
            self.add(
                Invariant.TOOL_SCOPE,
                f"{e.handoff_id}: agent {agent.name!r} has no sub-agent tool {e.tool!r}",
                e,
            )

    def _on_handoff_attempt_start(self, e: HandoffAttemptStartEvent) -> None:
        attempt: AttemptSpan = self.current
        handoff = attempt.handoff
        if not attempt.inside or handoff is None or handoff.start is None:
            self.add(Invariant.BALANCE, f"attempt of {e.handoff_id} outside its handoff", e)
            return
        start = handoff.start
        if (e.run_id, e.call_id) in self.refused:
            self.add(
                Invariant.DENIED_NOT_EXECUTED,
                f"{e.handoff_id} ran an attempt although its confirmation was refused",
                e,
            )
        policy = self.policy_of(e.run_id)
        if policy is None:
            return
        bound = policy.attempts if policy.enabled else 1
        if attempt.ordinal > bound:
            self.add(
                Invariant.ATTEMPT_BOUND,
                f"{e.handoff_id} started attempt {attempt.ordinal}, policy allows {bound}",
                e,
            )
        denial = policy.deny_reason(e.tool, start.depth) if policy.enabled else None
        if denial is not None:
            code, reason = denial
            broken = Invariant.DEPTH_BOUND if code == "max_depth" else Invariant.DENIED_NOT_EXECUTED
            self.add(broken, f"{e.handoff_id} ran an attempt although {reason}", e)

    def _on_handoff_attempt_end(self, e: HandoffAttemptEndEvent) -> None:
        attempt: AttemptSpan = self.current
        if attempt.start is None:
            self.add(
                Invariant.BALANCE, f"attempt {e.attempt} of {e.handoff_id} ended without start", e
            )
        policy = self.policy_of(e.run_id)
        if policy is None or policy.timeout is None:
            return
        limit_ms = policy.timeout * 1000
        if e.duration_ms > limit_ms + _TIME_EPSILON_MS:
            self.add(
                Invariant.TIMEOUT_BOUND,
                f"attempt {e.attempt} of {e.handoff_id} lasted {e.duration_ms:g} ms, "
                f"past its timeout of {limit_ms:g} ms",
                e,
            )
        elif e.outcome == "timeout" and abs(e.duration_ms - limit_ms) > _TIME_EPSILON_MS:
            self.add(
                Invariant.TIMEOUT_BOUND,
                f"attempt {e.attempt} of {e.handoff_id} timed out after {e.duration_ms:g} ms, "
                f"not at its timeout of {limit_ms:g} ms",
                e,
            )

    def _on_handoff_end(self, e: HandoffEndEvent) -> None:
        span: HandoffSpan = self.current
        if span.start is None:
            again = "a second handoff_end" if span.again else "handoff_end"
            self.add(Invariant.BALANCE, f"{e.handoff_id}: {again} without handoff_start", e)
            return
        started = sum(
            1 for a in span.attempts if a.inside and a.start is not None and a.start_at < self.index
        )
        if (e.status == "denied" or e.reason in DENIAL_REASONS) and (started or e.attempts):
            self.add(
                Invariant.DENIED_NOT_EXECUTED,
                f"{e.handoff_id} was denied ({e.reason}) but ran {max(started, e.attempts)} "
                "attempt(s)",
                e,
            )
        policy = self.policy_of(e.run_id)
        bound = None if policy is None else (policy.attempts if policy.enabled else 1)
        if bound is not None and e.attempts > bound:
            self.add(
                Invariant.ATTEMPT_BOUND,
                f"{e.handoff_id} reports {e.attempts} attempts, policy allows {bound}",
                e,
            )

    # -- confirmation (the SoPhi style) -------------------------------------------------------

    def _on_confirmation_request(self, e: ConfirmationRequestEvent) -> None:
        key = (e.run_id, e.batch_id)
        if key in self.asked:
            self.add(Invariant.BALANCE, f"{e.batch_id} in {e.run_id} asked twice", e)
        self.asked[key] = (e, {c: t for c, t in zip(e.call_ids, e.tools, strict=False)})

    def _on_confirmation_decision(self, e: ConfirmationDecisionEvent) -> None:
        found = self.asked.get((e.run_id, e.batch_id))
        if found is None or found[1].pop(e.call_id, None) is None:
            self.add(
                Invariant.BALANCE,
                f"{e.batch_id}: a decision on {e.call_id} that was not asked (or twice)",
                e,
            )
        if e.decision == "approved":
            self.refused.discard((e.run_id, e.call_id))
        else:
            self.refused.add((e.run_id, e.call_id))

    # -- the end of the trace ---------------------------------------------------------------

    def finish(self) -> None:
        self._open_spans()
        for (_, batch_id), (request, undecided) in self.asked.items():
            for call_id in undecided:
                message = f"{batch_id}: no confirmation_decision for {call_id}"
                self.add(Invariant.BALANCE, message, request)

    def _open_spans(self) -> None:
        spans = self.spans
        for handoff in spans.handoffs:
            if handoff.start is not None and handoff.end is None:
                message = f"{handoff.handoff_id}: handoff_start without handoff_end"
                self.add(Invariant.BALANCE, message, handoff.start)
        for call in spans.tool_calls:
            if call.start is not None and call.end is None:
                message = f"tool call {call.call_id}: tool_start without tool_end"
                self.add(Invariant.BALANCE, message, call.start)
        for a in spans.attempts:
            if a.start is not None and a.end is None and a.inside:
                message = f"attempt {a.number} of {a.start.handoff_id} never ended"
                self.add(Invariant.BALANCE, message, a.start)
        for run in spans.runs:
            if run.start is not None and run.end is None:
                message = f"run {run.run_id} of {run.start.agent!r} never ended"
                self.add(Invariant.TERMINATION, message, run.start)

    def check(self, events: Sequence[Event], spans: Spans | None = None) -> list[Violation]:
        """The violations in ``events``; ``spans`` is their span model when already built."""
        self.spans = spans if spans is not None else build_spans(events)
        handlers: dict[str, Callable[[Event], None]] = {
            kind: getattr(self, f"_on_{kind}") for kind in _HANDLED
        }
        for index, (event, span) in enumerate(zip(events, self.spans.at, strict=True)):
            handler = handlers.get(event.type)
            if handler is not None:
                self.index, self.current = index, span
                handler(event)
        self.finish()
        return self.violations


def _agents_by_name(root: Agent | None) -> dict[str, list[Agent]]:
    """Every agent reachable from ``root`` through its sub-agents, grouped by name."""
    found: dict[str, list[Agent]] = {}
    stack = [] if root is None else [root]
    seen: set[int] = set()
    while stack:
        agent = stack.pop()
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        found.setdefault(agent.name, []).append(agent)
        stack.extend(t for t in map(_fixed_target, agent.subagents) if t is not None)
    return found


def _fixed_target(mount: object) -> Agent | None:
    """The agent a mount always runs; None for one that builds its agent per call (a dispatcher)."""
    return cast("Agent | None", getattr(mount, "agent", None))


def _scope(agent: Agent) -> frozenset[str] | None:
    """Tool names ``agent`` may run, or None when a custom executor decides."""
    if not isinstance(agent.primary_executor, ToolSetExecutor):
        return None
    return frozenset(spec.name for spec in agent.tool_specs)
