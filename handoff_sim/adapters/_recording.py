"""Framework runs as handoff-sim events: runs, model turns, tool calls, delegations.

The framework adapters observe a run through the framework's own observation points
and report what they saw here, in framework-neutral terms; this module turns the
reports into the runtime's typed events with the runtime's rules: one ``run_end`` per
``run_start``, tool calls started in the model's call order and each ended once,
every delegation a ``handoff_start`` … ``handoff_end`` pair with its attempts.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from handoff_sim._context import Frame, RunEnvironment
from handoff_sim._sessions import Session
from handoff_sim._tool_calls import dedupe_call_ids
from handoff_sim.events import (
    HandoffAttemptEndEvent,
    HandoffAttemptStartEvent,
    HandoffEndEvent,
    HandoffFields,
    HandoffReason,
    HandoffStartEvent,
    HandoffStatus,
    ModelRequestEvent,
    ModelResponseEvent,
    RunEndEvent,
    RunStartEvent,
    RunStatus,
    ToolEndEvent,
    ToolStartEvent,
    ToolStatus,
)
from handoff_sim.messages import ToolCall

__all__ = [
    "NOT_RUN",
    "Delegation",
    "Recorder",
    "RunRecord",
    "Slot",
    "recorder_for",
]

NOT_RUN = "not run by the framework"
"""The ``tool_end`` output of a call the model asked for but the framework never ran."""


@dataclass(slots=True, eq=False)
class Slot:
    """One tool call of a model turn: the id events use, and how far its events got."""

    call: ToolCall
    raw_id: str
    started: bool = False
    ended: bool = False


@dataclass(slots=True, eq=False)
class RunRecord:
    """One agent run as the recorder tracks it."""

    frame: Frame
    parent_run_id: str | None
    input: str | None = None
    started: bool = False
    ended: bool = False
    steps: int = 0
    output: str | None = None
    seen_ids: set[str] = field(default_factory=set)
    slots: list[Slot] = field(default_factory=list)
    transferred_to: str | None = None
    handoff_tools: frozenset[str] = frozenset()
    output_tools: frozenset[str] = frozenset()
    """Tools through which the framework takes the run's output: calls to them are no tool calls."""

    @property
    def run_id(self) -> str:
        return self.frame.run_id


@dataclass(slots=True, eq=False)
class Delegation:
    """A delegation the framework ran without ``governed(...)``: a handoff we report."""

    parent: RunRecord
    slot: Slot
    subagent: str
    session_id: str
    start_us: int
    attempts: int = 0
    attempt_started_us: int = 0
    attempt_open: bool = False
    ended: bool = False
    child_status: RunStatus = "completed"
    child_output: str | None = None
    child_error: str | None = None

    @property
    def depth(self) -> int:
        return self.parent.frame.depth + 1

    @property
    def handoff_id(self) -> str:
        return f"handoff:{self.slot.call.id}"


class Recorder:
    """Emits the events of framework runs into one run environment."""

    def __init__(self, env: RunEnvironment) -> None:
        self.env = env
        self.runs: dict[str, RunRecord] = {}

    # -- runs -----------------------------------------------------------------------------

    def open_run(
        self,
        agent: str,
        *,
        depth: int,
        parent_run_id: str | None,
        handoff_id: str | None = None,
        session: Session | None = None,
        input: str | None = None,
    ) -> RunRecord:
        """A new run; its ``run_start`` waits until its input is known (or anything happens)."""
        env = self.env
        if session is None:
            session = Session(id=env.new_id("session"), agent=agent)
        frame = Frame(agent, depth, env.next_run_id(), session, handoff_id)
        record = RunRecord(frame, parent_run_id, input)
        self.runs[frame.run_id] = record
        if input is not None:
            self.ensure_started(record)
        return record

    def ensure_started(self, record: RunRecord) -> None:
        """Emit the run's ``run_start`` if it has not been emitted yet."""
        if record.started:
            return
        record.started = True
        self.env.publish(
            RunStartEvent(
                *self.env.stamp(record.frame),
                input=record.input or "",
                session_id=record.frame.session.id,
                parent_run_id=record.parent_run_id,
            )
        )

    def close_run(self, record: RunRecord, status: RunStatus, *, error: str | None = None) -> None:
        """Emit the run's one ``run_end`` (later calls do nothing)."""
        if record.ended:
            return
        self.ensure_started(record)
        self.flush_turn(record)
        record.ended = True
        output = None if status != "completed" or record.transferred_to else record.output
        self.env.publish(
            RunEndEvent(
                *self.env.stamp(record.frame),
                status=status,
                output=output,
                steps=record.steps,
                error=error,
            )
        )

    # -- model turns ----------------------------------------------------------------------

    def model_request(
        self, record: RunRecord, *, messages: int, tools: Sequence[str], input: str | None
    ) -> int:
        """Emit ``model_request`` for the run's next model call; its 1-based step."""
        if not record.started and record.input is None:
            record.input = input
        self.ensure_started(record)
        self.flush_turn(record)
        record.steps += 1
        self.env.publish(
            ModelRequestEvent(
                *self.env.stamp(record.frame),
                step=record.steps,
                messages=messages,
                tools=tuple(tools),
            )
        )
        return record.steps

    def model_response(
        self, record: RunRecord, step: int, text: str | None, calls: Sequence[ToolCall]
    ) -> None:
        """Emit ``model_response``; the calls become the turn's slots, ids made unique.

        Calls to the run's output tools are left out: they are the run's output, which
        its ``run_end`` carries, not tool calls the framework runs.
        """
        if record.output_tools:
            calls = [c for c in calls if c.name not in record.output_tools]
        unique = dedupe_call_ids(calls, step, record.seen_ids)
        record.slots = [Slot(u, raw.id) for u, raw in zip(unique, calls, strict=True)]
        record.output = text
        self.env.publish(
            ModelResponseEvent(
                *self.env.stamp(record.frame),
                step=step,
                text=text,
                tool_calls=tuple(f"{c.id}:{c.name}" for c in unique),
            )
        )

    # -- tool calls -----------------------------------------------------------------------

    def claim_slot(
        self,
        record: RunRecord,
        name: str,
        *,
        raw_id: str | None = None,
        arguments: str | None = None,
    ) -> Slot:
        """The turn's slot a framework tool call fills: by id, else by name (and arguments).

        A call the model response did not list (a model whose calls capture cannot
        read) gets a slot of its own with a generated id.
        """
        free = [s for s in record.slots if not s.started]
        if raw_id is not None:
            found = [s for s in free if s.raw_id == raw_id]
        else:
            named = [s for s in free if s.call.name == name]
            found = [s for s in named if s.call.arguments == arguments] or named
        if found:
            return found[0]
        index = len(record.slots)
        call_id = raw_id or f"call_{record.steps}_{index}"
        extra = dedupe_call_ids(
            (ToolCall(call_id, name, arguments or ""),), record.steps, record.seen_ids
        )[0]
        slot = Slot(extra, call_id)
        record.slots.append(slot)
        return slot

    def start_tool(self, record: RunRecord, slot: Slot) -> None:
        """Emit ``tool_start`` for ``slot`` and, first, for every earlier unstarted slot."""
        self.ensure_started(record)
        for candidate in record.slots:
            if not candidate.started:
                candidate.started = True
                call = candidate.call
                self.env.publish(
                    ToolStartEvent(
                        *self.env.stamp(record.frame),
                        call_id=call.id,
                        tool=call.name,
                        arguments=call.arguments,
                    )
                )
            if candidate is slot:
                return

    def end_tool(
        self, record: RunRecord, slot: Slot, status: ToolStatus, output: str | None
    ) -> None:
        """Emit the slot's one ``tool_end`` (starting it first if need be)."""
        if slot.ended:
            return
        self.start_tool(record, slot)
        slot.ended = True
        self.env.publish(
            ToolEndEvent(
                *self.env.stamp(record.frame),
                call_id=slot.call.id,
                tool=slot.call.name,
                status=status,
                output=output,
            )
        )

    def flush_turn(self, record: RunRecord, output: str = NOT_RUN) -> None:
        """End every call of the turn that has no ``tool_end`` yet, as an error."""
        for slot in record.slots:
            if not slot.ended:
                self.end_tool(record, slot, "error", output)

    # -- delegations the framework ran on its own -----------------------------------------

    def begin_delegation(self, parent: RunRecord, slot: Slot, subagent: str) -> Delegation:
        """Emit ``handoff_start`` for a delegation through ``slot``'s tool call."""
        env = self.env
        delegation = Delegation(parent, slot, subagent, env.new_id("session"), env.now_us())
        env.publish(
            HandoffStartEvent(
                *env.stamp(parent.frame, delegation.depth), **self._handoff_fields(delegation)
            )
        )
        return delegation

    def attempt_run(
        self, delegation: Delegation, agent: str, input: str | None = None
    ) -> RunRecord:
        """The delegation's next attempt: ``handoff_attempt_start``, then ``agent``'s run in the
        delegation's session, a child of the caller's."""
        self.begin_attempt(delegation)
        caller = delegation.parent.frame.session
        session = Session(
            id=delegation.session_id,
            parent_session_id=caller.id,
            root_session_id=caller.root_session_id or caller.id,
            agent=agent,
        )
        return self.open_run(
            agent,
            depth=delegation.depth,
            parent_run_id=delegation.parent.run_id,
            handoff_id=delegation.handoff_id,
            session=session,
            input=input,
        )

    def begin_attempt(self, delegation: Delegation) -> None:
        """Emit ``handoff_attempt_start`` for the delegation's next attempt."""
        self.end_attempt(delegation)
        delegation.attempts += 1
        delegation.attempt_open = True
        delegation.attempt_started_us = self.env.now_us()
        self.env.publish(
            HandoffAttemptStartEvent(
                *self.env.stamp(delegation.parent.frame, delegation.depth),
                handoff_id=delegation.handoff_id,
                call_id=delegation.slot.call.id,
                tool=delegation.slot.call.name,
                attempt=delegation.attempts,
            )
        )

    def end_attempt(self, delegation: Delegation) -> None:
        """Emit ``handoff_attempt_end`` of the open attempt, from how its child run ended."""
        if not delegation.attempt_open:
            return
        delegation.attempt_open = False
        status = delegation.child_status
        outcome: Literal["ok", "error", "cancelled"] = (
            "ok" if status == "completed" else "cancelled" if status == "cancelled" else "error"
        )
        now = self.env.now_us()  # the event's time and the end of its duration
        self.env.publish(
            HandoffAttemptEndEvent(
                *self.env.stamp(delegation.parent.frame, delegation.depth, now),
                handoff_id=delegation.handoff_id,
                call_id=delegation.slot.call.id,
                tool=delegation.slot.call.name,
                attempt=delegation.attempts,
                outcome=outcome,
                duration_ms=(now - delegation.attempt_started_us) / 1000,
                error=delegation.child_error,
            )
        )

    def end_delegation(self, delegation: Delegation, *, tool_failed: str | None = None) -> None:
        """Emit the delegation's one ``handoff_end``; its status follows its last child run."""
        if delegation.ended:
            return
        self.end_attempt(delegation)
        delegation.ended = True
        status: HandoffStatus = "completed"
        reason: HandoffReason | None = None
        error = delegation.child_error
        if delegation.child_status == "cancelled":
            status = "cancelled"
        elif delegation.child_status == "failed" or tool_failed is not None:
            status, reason = "failed", "error"
            error = error or tool_failed
        now = self.env.now_us()  # the event's time and the end of its duration
        self.env.publish(
            HandoffEndEvent(
                *self.env.stamp(delegation.parent.frame, delegation.depth, now),
                status=status,
                reason=reason,
                attempts=delegation.attempts,
                duration_ms=(now - delegation.start_us) / 1000,
                output=delegation.child_output if status == "completed" else None,
                error=error,
                **self._handoff_fields(delegation),
            )
        )

    @staticmethod
    def _handoff_fields(delegation: Delegation) -> HandoffFields:
        return {
            "handoff_id": delegation.handoff_id,
            "parent_handoff_id": delegation.parent.frame.handoff_id,
            "call_id": delegation.slot.call.id,
            "tool": delegation.slot.call.name,
            "subagent": delegation.subagent,
            "session_mode": "new_session",
            "session_id": delegation.session_id,
        }


_RECORDERS: weakref.WeakKeyDictionary[RunEnvironment, Recorder] = weakref.WeakKeyDictionary()


def recorder_for(env: RunEnvironment) -> Recorder:
    """The one recorder of ``env`` (made on first use)."""
    found = _RECORDERS.get(env)
    if found is None:
        found = _RECORDERS[env] = Recorder(env)
    return found
