"""The ReAct loop as a small step function over explicit state."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from handoff_sim._context import Frame, RunEnvironment
from handoff_sim._safe import describe_error
from handoff_sim._tool_calls import dedupe_call_ids, execute_calls
from handoff_sim.errors import MaxStepsExceededError, SessionStoreError
from handoff_sim.events import (
    ModelRequestEvent,
    ModelResponseEvent,
    RunEndEvent,
    RunStartEvent,
    RunStatus,
)
from handoff_sim.messages import Message, ModelRequest, check_response
from handoff_sim.sessions import try_save

if TYPE_CHECKING:
    from handoff_sim.agent import Agent

__all__ = ["LoopState", "run_loop"]


@dataclass(slots=True)
class LoopState:
    """Where one agent run stands: its messages, model calls so far, and the answer."""

    messages: list[Message]
    steps: int = 0
    output: str | None = None
    done: bool = False
    seen_call_ids: set[str] = field(default_factory=set)


async def step(agent: Agent, state: LoopState, env: RunEnvironment, frame: Frame) -> None:
    """One model call, then the tool calls it asked for (if any)."""
    env.charge_model_call(frame)  # the run budget: refused once it is used up
    state.steps += 1
    request = ModelRequest(
        agent=agent.name,
        model=agent.model_name,
        messages=tuple(state.messages),
        tools=agent.tool_specs,
        parallel_tool_calls=agent.parallel_tool_calls,
    )
    env.publish(
        ModelRequestEvent(
            step=state.steps,
            messages=len(request.messages),
            tools=request.tool_names,
            **env.stamp(frame),
        )
    )
    answer: object = agent.model.complete(request)
    if inspect.isawaitable(answer):  # a sync complete() is accepted as well
        answer = await answer
    response = check_response(answer, agent=agent.name, step=state.steps)
    calls = dedupe_call_ids(response.tool_calls, state.steps, state.seen_call_ids)
    env.publish(
        ModelResponseEvent(
            step=state.steps,
            text=response.text,
            tool_calls=tuple(f"{c.id}:{c.name}" for c in calls),
            **env.stamp(frame),
        )
    )
    state.messages.append(Message(role="assistant", content=response.text, tool_calls=calls))
    if not calls:
        state.output, state.done = response.text, True
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
    state = LoopState(messages=session.messages)
    env.publish(
        RunStartEvent(
            input=user_input,
            session_id=session.id,
            parent_run_id=parent_run_id,
            **env.stamp(frame),
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
                status=status,
                output=state.output,
                steps=state.steps,
                error=error,
                **env.stamp(frame),
            )
        )
    if problem is not None and raised is None:
        raise problem
    if note is not None and raised is not None:
        raised.add_note(f"agent {agent.name!r}: {note}")
