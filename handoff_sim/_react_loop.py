"""The ReAct loop as a small step function over explicit state."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass, field
from types import CoroutineType
from typing import TYPE_CHECKING

from handoff_sim._context import Frame, RunEnvironment
from handoff_sim._errors._run import MaxStepsExceededError
from handoff_sim._safe import describe_error
from handoff_sim._sessions import try_save
from handoff_sim._tool_calls import dedupe_call_ids, execute_calls
from handoff_sim.errors import SessionStoreError
from handoff_sim.events import (
    ModelRequestEvent,
    ModelResponseEvent,
    RunEndEvent,
    RunStartEvent,
    RunStatus,
)
from handoff_sim.messages import (
    Message,
    MessageHistory,
    ModelRequest,
    check_response,
    plain_response,
)

if TYPE_CHECKING:
    from handoff_sim._agent import Agent

__all__ = ["LoopState", "run_loop"]


@dataclass(slots=True)
class LoopState:
    """Where one agent run stands: its messages, model calls so far, and the answer.

    ``log`` holds the same messages, only ever appended to: each request views a
    prefix of it (:class:`MessageHistory`) instead of copying the whole history.
    """

    messages: list[Message]
    steps: int = 0
    output: str | None = None
    done: bool = False
    seen_call_ids: set[str] = field(default_factory=set)
    log: list[Message] = field(default_factory=list)

    def history(self) -> MessageHistory:
        """The messages so far, as a view later turns cannot change."""
        messages, log = self.messages, self.log
        known, now = len(log), len(messages)
        if known > now or (known and messages[known - 1] is not log[-1]):
            # Changed other than by appending: a new log; views of the old one keep theirs.
            log = self.log = list(messages)
        elif known < now:
            log.extend(messages[known:])
        return MessageHistory(log, now)


def tool_names(agent: Agent) -> tuple[str, ...]:
    """The names of the tools ``agent`` offers, worked out once per set of tool specs."""
    specs = agent.tool_specs
    cached = agent.__dict__.get("_tool_names")
    if cached is None or cached[0] is not specs:
        cached = agent.__dict__["_tool_names"] = (specs, tuple(s.name for s in specs))
    names: tuple[str, ...] = cached[1]
    return names


async def step(agent: Agent, state: LoopState, env: RunEnvironment, frame: Frame) -> None:
    """One model call, then the tool calls it asked for (if any)."""
    env.charge_model_call(frame)  # the run budget: refused once it is used up
    state.steps = number = state.steps + 1
    history = state.history()
    model = agent.model  # read once: the request names it and it answers
    request = ModelRequest(
        agent=agent.name,
        model=agent.model_name,
        messages=history,
        tools=agent.tool_specs,
        parallel_tool_calls=agent.parallel_tool_calls,
    )
    # The view's own length object: the event shares it instead of holding an equal int.
    env.publish(
        ModelRequestEvent(
            *env.stamp(frame), step=number, messages=history._len, tools=tool_names(agent)
        )
    )
    answer: object = model.complete(request)
    if type(answer) is CoroutineType or inspect.isawaitable(answer):  # sync complete() too
        answer = await answer
    response = (
        answer if plain_response(answer) else check_response(answer, agent=agent.name, step=number)
    )
    calls = response.tool_calls
    calls = dedupe_call_ids(calls, number, state.seen_call_ids) if calls else ()
    text = response.text
    env.publish(
        ModelResponseEvent(
            *env.stamp(frame),
            step=number,
            text=text,
            tool_calls=tuple([f"{c.id}:{c.name}" for c in calls]) if calls else (),
        )
    )
    state.messages.append(Message(role="assistant", content=text, tool_calls=calls))
    if not calls:
        state.output, state.done = text, True
        return
    results = await execute_calls(
        calls, env, frame, agent.executor.execute, parallel=agent.parallel_tool_calls
    )
    state.messages.extend(results)


async def run_loop(
    agent: Agent,
    user_input: str,
    env: RunEnvironment,
    frame: Frame,
    parent_run_id: str | None,
) -> LoopState:
    """Run the agent until a text answer; save the session and end the run whatever happens."""
    session = frame.session
    if agent.system_prompt and not session.messages:
        session.messages.append(Message(role="system", content=agent.system_prompt))
    session.messages.append(Message(role="user", content=user_input))
    state = LoopState(session.messages)
    env.publish(
        RunStartEvent(
            *env.stamp(frame), input=user_input, session_id=session.id, parent_run_id=parent_run_id
        )
    )
    status: RunStatus = "failed"
    raised: BaseException | None = None
    try:
        while not state.done:
            if state.steps >= agent.max_steps:
                raise MaxStepsExceededError(agent.name, agent.max_steps)
            await step(agent, state, env, frame)
        status = "completed"
        return state
    except asyncio.CancelledError as exc:
        status, raised = "cancelled", exc
        raise
    except BaseException as exc:
        raised = exc
        if not isinstance(exc, Exception):  # KeyboardInterrupt, SystemExit, GeneratorExit
            status = "cancelled"
        raise
    finally:
        _end_run(agent, state, env, frame, status, raised)


def _end_run(
    agent: Agent,
    state: LoopState,
    env: RunEnvironment,
    frame: Frame,
    status: RunStatus,
    raised: BaseException | None,
) -> None:
    """Save the session, then emit the run's one ``run_end``, even when saving fails.

    A failed save fails a run that had no error of its own (the SessionStoreError is
    raised); an error the run already had is kept, and the failed save is noted on it.
    """
    error = (
        None
        if raised is None or isinstance(raised, asyncio.CancelledError)
        else describe_error(raised)
    )
    frame.session.status = status
    problem: SessionStoreError | None = None
    try:
        problem = try_save(agent.session_store, frame.session, agent.name)
    finally:
        note = None if problem is None else f"session not saved: {describe_error(problem)}"
        if note is not None:
            status = "failed" if raised is None else status
            error = f"{error}; {note}" if error else note
        env.publish(
            RunEndEvent(
                *env.stamp(frame),
                status=status,
                output=state.output,
                steps=state.steps,
                error=error,
            )
        )
    if problem is not None and raised is None:
        raise problem
    if note is not None and raised is not None:
        raised.add_note(f"agent {agent.name!r}: {note}")
