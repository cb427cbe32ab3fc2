"""``Agent``: a model, its tools and sub-agents, and the entry points of a run (R4)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from handoff_sim._context import (
    Frame,
    RunEnvironment,
    current_environment,
    current_frame,
    use_environment,
    use_frame,
)
from handoff_sim._loop import run_loop
from handoff_sim.errors import (
    ConfigurationError,
    DuplicateToolNameError,
    InvalidNameError,
    ReservedPrefixError,
    RunError,
)
from handoff_sim.messages import Message, ToolSpec
from handoff_sim.models import ModelClient
from handoff_sim.sessions import InMemorySessionStore, Session, SessionStore
from handoff_sim.subagents._naming import SUBAGENT_PREFIX
from handoff_sim.subagents.definition import SubAgent
from handoff_sim.subagents.executor import HandoffExecutor
from handoff_sim.subagents.policy import HandoffPolicy
from handoff_sim.tools import Tool, ToolExecutor, ToolSetExecutor
from handoff_sim.trace import Trace

__all__ = ["Agent", "RunResult"]

DEFAULT_MAX_STEPS = 20


@dataclass(frozen=True, slots=True)
class RunResult:
    """What a run produced: the answer, model calls, session, messages, trace, time."""

    output: str | None
    steps: int
    session_id: str
    messages: tuple[Message, ...]
    trace: Trace
    elapsed_ms: float


class Agent:
    """An agent: a model client, plain tools, sub-agents (each one more tool) and a policy.

    ``tool_executor`` replaces the primary executor (default: serves ``tools``);
    it must raise :class:`UnknownToolError` for names it does not serve. Sub-agent
    calls never reach it, except as a fallback (S1, S9).
    """

    def __init__(
        self,
        name: str,
        model: ModelClient,
        *,
        tools: Iterable[Tool] = (),
        subagents: Iterable[SubAgent] = (),
        handoff_policy: HandoffPolicy | None = None,
        parallel_tool_calls: bool = False,
        max_steps: int = DEFAULT_MAX_STEPS,
        system_prompt: str | None = None,
        tool_executor: ToolExecutor | None = None,
        session_store: SessionStore | None = None,
        model_name: str | None = None,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise InvalidNameError("agent name is required")
        if model is None or not callable(getattr(model, "complete", None)):
            raise ConfigurationError(
                f"agent {name!r}: model must be a model client with complete(request), "
                f"got {model!r}"
            )
        if not isinstance(max_steps, int) or max_steps < 1:
            raise ConfigurationError(f"agent {name!r}: max_steps must be >= 1, got {max_steps!r}")
        if handoff_policy is not None and not isinstance(handoff_policy, HandoffPolicy):
            raise ConfigurationError(f"agent {name!r}: handoff_policy must be a HandoffPolicy")
        self.name = name.strip()
        self.model = model
        self.model_name: str = model_name or str(
            getattr(model, "model_name", None) or type(model).__name__
        )
        self.tools = tuple(tools)
        self.subagents = tuple(subagents)
        self.handoff_policy = handoff_policy or HandoffPolicy()
        self.parallel_tool_calls = parallel_tool_calls
        self.max_steps = max_steps
        self.system_prompt = system_prompt
        self.session_store: SessionStore = session_store or InMemorySessionStore()
        self.tool_specs: tuple[ToolSpec, ...] = self._check_names()
        self.primary_executor: ToolExecutor = tool_executor or ToolSetExecutor(self.tools)
        self.executor: HandoffExecutor = HandoffExecutor(
            {s.tool_name: s for s in self.subagents if s.offered},
            self.primary_executor,
            self.handoff_policy,
        )

    def __repr__(self) -> str:
        return f"Agent(name={self.name!r})"

    def _check_names(self) -> tuple[ToolSpec, ...]:
        """Plain tools, then sub-agent tools, in definition order; no name twice (S1, S2, F1)."""
        seen: set[str] = set()
        specs: list[ToolSpec] = []
        for plain in self.tools:
            if plain.name.startswith(SUBAGENT_PREFIX):
                raise ReservedPrefixError(plain.name)
            specs.append(plain.spec)
        specs.extend(sub.spec for sub in self.subagents if sub.offered)
        for spec in specs:
            if spec.name in seen:
                raise DuplicateToolNameError(spec.name)
            seen.add(spec.name)
        return tuple(specs)

    def run(
        self,
        user_input: str,
        *,
        session: Session | str | None = None,
        observers: Sequence[object] = (),
    ) -> RunResult:
        """Run in real time on a fresh event loop (sync wrapper of :meth:`arun`)."""
        _refuse_inside_running_loop("Agent.run()", "await agent.arun(...)")
        return asyncio.run(self.arun(user_input, session=session, observers=observers))

    async def arun(
        self,
        user_input: str,
        *,
        session: Session | str | None = None,
        observers: Sequence[object] = (),
    ) -> RunResult:
        """Run the ReAct loop to a text answer. Inside ``simulate`` it runs in virtual time."""
        env = current_environment()
        if env is None:
            env = RunEnvironment(observers=tuple(observers))
        elif observers:
            raise ConfigurationError("observers go to simulate()/Simulation when one is running")
        with use_environment(env):
            conversation = self._session(session, env)
            first_event, started = len(env.events), env.now_us()
            parent = current_frame()
            frame = Frame(self.name, 0, env.next_run_id(), conversation)
            with use_frame(frame):
                state = await run_loop(
                    self, user_input, env, frame, parent.run_id if parent else None
                )
            return RunResult(
                output=state.output,
                steps=state.steps,
                session_id=conversation.id,
                messages=tuple(conversation.messages),
                trace=Trace(env.events[first_event:]),
                elapsed_ms=(env.now_us() - started) / 1000,
            )

    def _session(self, session: Session | str | None, env: RunEnvironment) -> Session:
        if isinstance(session, Session):
            return session
        if isinstance(session, str):
            found = self.session_store.load(session)
            if found is None:
                raise ConfigurationError(f"agent {self.name!r}: no session with id {session!r}")
            return found
        return Session(id=env.new_id("session"), agent=self.name)

    async def run_as_subagent(
        self, user_input: str, session: Session, *, depth: int, handoff_id: str
    ) -> tuple[str | None, int]:
        """Run as the target of a handoff, at ``depth``, in ``session``; (output, steps)."""
        env, parent = current_environment(), current_frame()
        if env is None or parent is None:
            raise RuntimeError("run_as_subagent is called by the handoff executor during a run")
        frame = Frame(self.name, depth, env.next_run_id(), session, handoff_id)
        with use_frame(frame):
            state = await run_loop(self, user_input, env, frame, parent.run_id)
        return state.output, state.steps


def _refuse_inside_running_loop(what: str, instead: str) -> None:
    """A sync entry point cannot start a loop inside a running one; say what to do instead."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RunError(f"{what} cannot run inside a running event loop; use {instead} instead")
