"""``Agent``: a model, its tools and sub-agents, and the entry points of a run."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from handoff_sim._agent_checks import (
    check_model,
    check_options,
    checked_name,
    checked_tools,
    describe,
    items,
)
from handoff_sim._context import (
    ENVIRONMENT,
    FRAME,
    Budget,
    Frame,
    RunEnvironment,
    current_environment,
    current_frame,
    nesting_below,
    use_environment,
    use_frame,
)
from handoff_sim._errors._configuration import DuplicateToolNameError, ReservedPrefixError
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._models import ModelClient
from handoff_sim._react_loop import LoopState, run_loop
from handoff_sim._sessions import InMemorySessionStore, Session, SessionStore, load_session
from handoff_sim._tools import Tool, ToolExecutor, ToolSetExecutor
from handoff_sim.errors import RunError
from handoff_sim.messages import Message, ToolSpec
from handoff_sim.subagents import HandoffExecutor
from handoff_sim.subagents._definition import SubAgent
from handoff_sim.subagents._naming import SUBAGENT_PREFIX
from handoff_sim.subagents._policy import HandoffPolicy
from handoff_sim.trace import Trace

__all__ = ["Agent", "RunResult", "check_wiring", "override_agent_models", "require_agent"]

DEFAULT_MAX_STEPS = 20
_FRESH_STACK_EVERY = 16


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
    calls never reach it, except as a fallback.
    """

    def __init__(
        self,
        name: str,
        model: ModelClient,
        *,
        tools: Iterable[Tool] = (),
        subagents: Iterable[SubAgent | Agent] = (),
        handoff_policy: HandoffPolicy | None = None,
        parallel_tool_calls: bool = False,
        max_steps: int = DEFAULT_MAX_STEPS,
        system_prompt: str | None = None,
        tool_executor: ToolExecutor | None = None,
        session_store: SessionStore | None = None,
        model_name: str | None = None,
    ) -> None:
        self.name = name = checked_name(name)
        check_model(name, model)
        check_options(
            name,
            handoff_policy=handoff_policy,
            parallel_tool_calls=parallel_tool_calls,
            max_steps=max_steps,
            system_prompt=system_prompt,
            tool_executor=tool_executor,
            session_store=session_store,
            model_name=model_name,
        )
        self._model: ModelClient = model
        self._model_name = model_name
        self.tools = checked_tools(name, tools)
        self.subagents = _checked_subagents(name, subagents)
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
        check_wiring(self)

    def __repr__(self) -> str:
        return f"Agent(name={self.name!r})"

    @property
    def model(self) -> ModelClient:
        """The model client this agent calls: an active :meth:`override`'s, else its own."""
        overrides = _MODEL_OVERRIDES.get()
        return self._model if overrides is None else overrides.model_for(self)

    @model.setter
    def model(self, model: ModelClient) -> None:
        check_model(self.name, model)
        self._model = model

    @property
    def model_name(self) -> str:
        """The name sent in model requests: the one given, else the active model's own."""
        if self._model_name is not None:
            return self._model_name
        model = self.model
        return str(getattr(model, "model_name", None) or type(model).__name__)

    @contextmanager
    def override(self, *, model: ModelClient) -> Iterator[None]:
        """Run this agent on ``model`` inside the ``with`` block, as pydantic-ai's override.

        The swap lives in a context variable: it holds in this task and in the tasks and
        runs started inside the block, not in runs other tasks started before it; nested
        overrides stack, and the previous model is back on exit, even on an exception.
        Only this agent changes: its sub-agents keep their models
        (``handoff_sim.testing.override_models`` swaps a whole tree by name).
        """
        check_model(self.name, model)
        with override_agent_models({self: model}):
            yield

    def _check_names(self) -> tuple[ToolSpec, ...]:
        """Plain tools, then sub-agent tools, in definition order; no name twice."""
        for plain in self.tools:
            if plain.name.startswith(SUBAGENT_PREFIX):
                raise ReservedPrefixError(plain.name)
        entries = [(t.spec, False) for t in self.tools]
        entries.extend((sub.spec, True) for sub in self.subagents if sub.offered)
        seen: dict[str, bool] = {}
        for spec, is_subagent in entries:
            if spec.name in seen:
                raise DuplicateToolNameError(spec.name, subagent=is_subagent or seen[spec.name])
            seen[spec.name] = is_subagent
        return tuple(spec for spec, _ in entries)

    def run(
        self,
        user_input: str,
        *,
        session: Session | str | None = None,
        observers: Sequence[object] = (),
        max_model_calls: int | None = None,
        max_handoffs: int | None = None,
    ) -> RunResult:
        """Run in real time on a fresh event loop (sync wrapper of :meth:`arun`)."""
        _refuse_inside_running_loop("Agent.run()", "await agent.arun(...)")
        done: list[RunResult] = []

        async def main() -> None:
            # The result leaves through ``done``, not as the main task's result: on exit
            # asyncio.run may repr that task, result included (the whole conversation).
            done.append(
                await self.arun(
                    user_input,
                    session=session,
                    observers=observers,
                    max_model_calls=max_model_calls,
                    max_handoffs=max_handoffs,
                )
            )

        asyncio.run(main())
        return done[0]

    async def arun(
        self,
        user_input: str,
        *,
        session: Session | str | None = None,
        observers: Sequence[object] = (),
        max_model_calls: int | None = None,
        max_handoffs: int | None = None,
    ) -> RunResult:
        """Run the ReAct loop to a text answer. Inside ``simulate`` it runs in virtual time.

        ``max_model_calls`` and ``max_handoffs`` cap the whole run, sub-agents included
        (default: the run budget in docs/runtime.md); under a Simulation its budget applies.
        """
        if not isinstance(user_input, str):
            raise ConfigurationError(
                f"agent {self.name!r}: user_input must be a str, got {describe(user_input)}"
            )
        env = _environment(observers, max_model_calls, max_handoffs)
        with use_environment(env):
            parent = current_frame()
            if parent is None:
                check_wiring(self)
            conversation = self._session(session, env)
            first_event, started = len(env.events), env.now_us()
            nesting = nesting_below(parent, self.name)
            frame = Frame(self.name, 0, env.next_run_id(), conversation, None, nesting)
            with use_frame(frame):
                state = await _run_nested(
                    self, user_input, env, frame, parent.run_id if parent else None
                )
            return RunResult(
                output=state.output,
                steps=state.steps,
                session_id=conversation.id,
                messages=tuple(conversation.messages),
                # no slice of a whole list: its copy would only add to the peak memory
                trace=Trace(env.events[first_event:] if first_event else env.events),
                elapsed_ms=(env.now_us() - started) / 1000,
            )

    def _session(self, session: Session | str | None, env: RunEnvironment) -> Session:
        if isinstance(session, Session):
            return session
        if isinstance(session, str):
            found = load_session(self.session_store, session, self.name)
            if found is None:
                raise ConfigurationError(f"agent {self.name!r}: no session with id {session!r}")
            return found
        if session is not None:
            raise ConfigurationError(
                f"agent {self.name!r}: session must be a Session, a session id or None, "
                f"got {describe(session)}"
            )
        return Session(id=env.new_id("session"), agent=self.name)

    async def run_as_subagent(
        self, user_input: str, session: Session, *, depth: int, handoff_id: str
    ) -> tuple[str | None, int]:
        """Run as the target of a handoff, at ``depth``, in ``session``; (output, steps)."""
        env, parent = ENVIRONMENT.get(), FRAME.get()
        if env is None or parent is None:
            raise RuntimeError("run_as_subagent is called by the handoff executor during a run")
        nesting = nesting_below(parent, self.name)
        frame = Frame(self.name, depth, env.next_run_id(), session, handoff_id, nesting)
        token = FRAME.set(frame)  # what use_frame does, without its object (once per handoff)
        try:
            state = await _run_nested(self, user_input, env, frame, parent.run_id)
        finally:
            FRAME.reset(token)
        return state.output, state.steps


def _environment(
    observers: Sequence[object], max_model_calls: int | None, max_handoffs: int | None
) -> RunEnvironment:
    """The running environment, or a new one with the given observers and budget."""
    limits = {
        k: v
        for k, v in (("max_model_calls", max_model_calls), ("max_handoffs", max_handoffs))
        if v is not None
    }
    env = current_environment()
    if env is None:
        return RunEnvironment(observers=tuple(observers), budget=Budget(**limits))
    if observers or limits:
        given = ", ".join(["observers"] * bool(observers) + list(limits))
        raise ConfigurationError(
            f"{given} go to simulate()/Simulation (or the outermost run) when one is running"
        )
    return env


def _run_nested(
    agent: Agent, user_input: str, env: RunEnvironment, frame: Frame, parent_run_id: str | None
) -> Awaitable[LoopState]:
    """Run the loop; every few nesting levels in a task of its own, on a fresh stack.

    Each nested run costs about a dozen Python frames; starting a task every
    ``_FRESH_STACK_EVERY`` levels keeps the deepest allowed nesting far from Python's
    recursion limit. Shallow runs (almost all) await the loop directly, so their event
    order is untouched.
    """
    coro = run_loop(agent, user_input, env, frame, parent_run_id)
    if frame.nesting == 0 or frame.nesting % _FRESH_STACK_EVERY:
        return coro
    return asyncio.get_running_loop().create_task(coro)


def _refuse_inside_running_loop(what: str, instead: str) -> None:
    """A sync entry point cannot start a loop inside a running one; say what to do instead."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RunError(f"{what} cannot run inside a running event loop; use {instead} instead")


def require_agent(value: object, where: str) -> Agent:
    """``value`` if it is an Agent; else a ConfigurationError saying what ``where`` takes."""
    if not isinstance(value, Agent):
        raise ConfigurationError(
            f"{where}: the first argument must be an Agent, got {describe(value)}"
        )
    return value


# -- model overrides -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ModelOverrides:
    """The models swapped in for this context: per agent, and per (original model, name).

    The second form reaches agents built during a run (a SoPhi dispatcher builds one per
    delegation, with the model of its configuration): an agent named ``name`` whose own
    model is that very object runs on the replacement.
    """

    agents: Mapping[int, tuple[Agent, ModelClient]]
    built: Mapping[tuple[int, str], tuple[ModelClient, ModelClient]]

    def model_for(self, agent: Agent) -> ModelClient:
        entry = self.agents.get(id(agent))
        if entry is not None and entry[0] is agent:
            return entry[1]
        own = agent._model
        built = self.built.get((id(own), agent.name))
        if built is not None and built[0] is own:
            return built[1]
        return own


_MODEL_OVERRIDES: ContextVar[_ModelOverrides | None] = ContextVar(
    "handoff_sim_model_overrides", default=None
)


@contextmanager
def override_agent_models(
    agents: Mapping[Agent, ModelClient],
    built: Mapping[tuple[ModelClient, str], ModelClient] | None = None,
) -> Iterator[None]:
    """Swap models for this context: ``agents`` by object, ``built`` by (own model, name).

    Stacks on the overrides already active; the token is reset on exit, exceptions too.
    """
    current = _MODEL_OVERRIDES.get()
    merged_agents = dict(current.agents) if current else {}
    merged_built = dict(current.built) if current else {}
    merged_agents.update({id(a): (a, m) for a, m in agents.items()})
    merged_built.update({(id(own), name): (own, m) for (own, name), m in (built or {}).items()})
    token = _MODEL_OVERRIDES.set(_ModelOverrides(merged_agents, merged_built))
    try:
        yield
    finally:
        _MODEL_OVERRIDES.reset(token)


# -- wiring: sub-agent cycles -------------------------------------------------------------


def _children(agent: Agent) -> list[Agent]:
    """The agents ``agent``'s sub-agent tools run (dynamic targets, like SoPhi's, have none)."""
    out = []
    mounts = getattr(getattr(agent, "executor", None), "mounts", {})
    for tool_name, mount in mounts.items():
        child = getattr(mount, "agent", None)
        if child is None or (
            getattr(mount, "mounts_stand_in", False) and not isinstance(child, Agent)
        ):
            continue  # a target chosen per call: nothing to walk
        if not isinstance(child, Agent):
            raise ConfigurationError(
                f"agent {agent.name!r}: sub-agent tool {tool_name!r} runs {describe(child)}, "
                "not an Agent; set SubAgent.agent to an Agent"
            )
        out.append(child)
    return out


def check_wiring(root: Agent) -> None:
    """Refuse a sub-agent cycle reachable from ``root``, naming it (``a -> b -> a``).

    A cycle would delegate forever: virtual time stands still, so no deadline ends it.
    Cycles can only be made by changing a ``SubAgent.agent`` (or an executor's mounts)
    after construction, so this runs at construction and again at every top-level run.
    """
    done: set[int] = set()
    path: list[Agent] = [root]
    on_path: dict[int, int] = {id(root): 0}  # id(agent) -> its index in path
    pending: list[Iterator[Agent]] = [iter(_children(root))]
    while pending:
        child = next(pending[-1], None)
        if child is None:
            pending.pop()
            finished = path.pop()
            del on_path[id(finished)]
            done.add(id(finished))
        elif id(child) in on_path:
            loop = [a.name for a in path[on_path[id(child)] :]] + [child.name]
            raise ConfigurationError(
                f"sub-agent cycle: {' -> '.join(loop)}: an agent that can reach itself "
                "through its sub-agents would delegate forever; break the cycle (for bounded "
                "recursion, mount a fresh Agent per level)"
            )
        elif id(child) not in done:
            on_path[id(child)] = len(path)
            path.append(child)
            pending.append(iter(_children(child)))


def _checked_subagents(name: str, subagents: object) -> tuple[SubAgent, ...]:
    """SubAgents as they are; a plain Agent is mounted under its own name."""
    out = []
    for index, item in enumerate(items(name, "subagents", subagents, "SubAgent objects")):
        if isinstance(item, Agent):
            item = SubAgent(item.name, "", item)
        elif not isinstance(item, SubAgent):
            raise ConfigurationError(
                f"agent {name!r}: subagents[{index}] is {describe(item)}, not a SubAgent; "
                "pass SubAgent(name, description, agent=...) or an Agent"
            )
        out.append(item)
    return tuple(out)
