"""Scenario files on a framework: what the openai-agents and pydantic-ai runtimes share.

A framework runtime builds each agent a scenario reaches as a framework agent: its
model is ``SimModel`` around the scenario's own fake model, its fake tools become
framework tools, and each sub-agent mount becomes the framework's agent-as-tool under
``governed(...)`` with the parent's policy (the policy is what the frameworks lack).
All turns run in one ``simulate_run``-style simulation (virtual time, captured) and
the same expectations are checked on the captured trace. What a framework cannot
express is refused before anything runs with :class:`ScenarioNotApplicable`, which
names the feature.
"""

from __future__ import annotations

import contextlib
import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

from handoff_sim._models import ModelClient
from handoff_sim._safe import JsonProblem, parse_json
from handoff_sim._tools import Tool
from handoff_sim.adapters._capture import Capture
from handoff_sim.adapters._errors import ScenarioNotApplicable
from handoff_sim.adapters._governed import Fallback
from handoff_sim.adapters._simulate import simulate_with
from handoff_sim.errors import HandoffSimError
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall
from handoff_sim.scenarios import LoadedScenario, ScenarioRun, ScenarioSpec
from handoff_sim.scenarios._build import (
    CatchAllExecutor,
    ModelFactory,
    ToolRuns,
    build_models,
    build_policy,
    fake_tool,
    unused_recorded_steps,
)
from handoff_sim.scenarios._schema import AgentSpec, ScriptModelSpec, StepSpec, SubAgentSpec
from handoff_sim.simulation._simulation import DEFAULT_DEADLINE
from handoff_sim.subagents._input import resolve_input
from handoff_sim.subagents._naming import check_explicit_tool_name, normalize_tool_name
from handoff_sim.subagents._policy import HandoffPolicy
from handoff_sim.trace import Trace

__all__ = [
    "AgentPlan",
    "FrameworkRuntime",
    "MountPlan",
    "NativeArguments",
    "ScenarioPlan",
    "native_arguments",
    "not_applicable",
]

AgentT = TypeVar("AgentT")
StateT = TypeVar("StateT")


@dataclass(frozen=True, slots=True)
class MountPlan:
    """One sub-agent mount: the agent mounted, its name in events, its tool name and text."""

    agent: str
    name: str
    tool_name: str
    description: str


@dataclass(slots=True)
class AgentPlan:
    """One agent of a scenario, in framework-neutral terms."""

    name: str
    spec: AgentSpec
    model: ModelClient
    tools: list[Tool]
    mounts: list[MountPlan]
    policy: HandoffPolicy
    fallback: Fallback | None

    @property
    def parallel(self) -> bool:
        """Whether the calls of one model turn run concurrently (``parallel_tool_calls``)."""
        return self.spec.parallel_tool_calls


@dataclass(slots=True)
class ScenarioPlan:
    """Every agent the entry agent reaches, its tools and mounts resolved; counts tool runs."""

    entry: str
    agents: dict[str, AgentPlan] = field(default_factory=dict)
    tool_runs: ToolRuns = field(default_factory=ToolRuns)


def _reachable(spec: ScenarioSpec) -> list[str]:
    """The entry agent and every agent it mounts, directly or not, in first-seen order."""
    seen: list[str] = []
    todo = [spec.entry_agent]
    while todo:
        name = todo.pop(0)
        if name in seen or name not in spec.agents:
            continue
        seen.append(name)
        todo.extend(m.agent for m in spec.agents[name].mounts())
    return seen


def _script_calls(agent: AgentSpec) -> list[str]:
    """The tool names a scripted model of ``agent`` calls."""
    model = agent.model
    if not isinstance(model, ScriptModelSpec) or model.script is None:
        return []
    return [
        call.name
        for step in model.script
        if isinstance(step, StepSpec)
        for call in step.tool_calls or ()
    ]


_SOPHI = (
    "the SoPhi style (agent types, a dispatcher offering delegate_to_subagent, confirmation "
    "of risky calls) is built on handoff-sim's runtime only"
)


def _mount_problem(where: str, entry: object) -> str | None:
    if not isinstance(entry, SubAgentSpec):
        return f"{where}.dispatcher: {_SOPHI}"
    if entry.style == "flink":
        return (
            f"{where}.style: a Flink-style sub-agent (the model's arguments passed on "
            "unchanged, its result read as JSON) is built on handoff-sim's runtime only"
        )
    if entry.session_mode == "reuse_session":
        return (
            f"{where}.session_mode: reuse_session: a governed delegation always starts a new "
            "session (the framework keeps a sub-agent's conversation its own way)"
        )
    return None


def _offered(agent: AgentSpec) -> set[str]:
    """The tool names the agent offers (a name the naming rules refuse is left out)."""
    names = set(agent.tools)
    for mount in agent.mounts():
        with contextlib.suppress(HandoffSimError):  # a construction error of the run
            names.add(_mount_plan(mount).tool_name)
    return names


def _agent_problem(name: str, agent: AgentSpec) -> str | None:
    if agent.dispatcher is not None:
        return f"agents.{name}.dispatcher: {_SOPHI}"
    for index, entry in agent.entries():
        problem = _mount_problem(f"agents.{name}.subagents.{index}", entry)
        if problem is not None:
            return problem
    offered = _offered(agent)
    unoffered = sorted({c for c in _script_calls(agent) if c not in offered})
    if unoffered and agent.tool_executor is not None:
        return (
            f"agents.{name}.tool_executor: a primary executor that serves tool names the agent "
            f"does not offer ({', '.join(unoffered)}); a framework has none (a call to a tool "
            "it does not offer is the model's error)"
        )
    return None


def not_applicable(spec: ScenarioSpec) -> str | None:
    """Why ``spec`` cannot be built on a framework (the first reason found), or ``None``."""
    if spec.agent_types or spec.agent_types_dir is not None:
        return f"agent_types: {_SOPHI}"
    for name in _reachable(spec):
        problem = _agent_problem(name, spec.agents[name])
        if problem is not None:
            return problem
    for index, turn in enumerate(spec.turns()):
        if turn.session != "continue":
            return f"run.{index}.session: a framework run keeps one conversation for every turn"
    if spec.expect.sessions is not None:
        return (
            "expect.sessions: the sessions are those of handoff-sim's session store, which "
            "framework runs do not use"
        )
    return None


def _mount_plan(entry: SubAgentSpec) -> MountPlan:
    """Name, tool name and description of a mount, by the same rules as ``SubAgent``."""
    name = (entry.name if entry.name is not None else entry.agent).strip()
    explicit = (entry.tool_name or "").strip()
    tool_name = check_explicit_tool_name(explicit) if explicit else normalize_tool_name(name)
    description = entry.description.strip() or f"Delegate a specialized task to subagent {name}"
    return MountPlan(entry.agent, name, tool_name, description)


def _fallback(agent: AgentSpec) -> Fallback | None:
    """The primary executor a ``FALLBACK_TO_PRIMARY`` call reaches: the ``tool_executor`` fake."""
    if agent.tool_executor is None:
        return None
    executor = CatchAllExecutor([], agent.tool_executor)

    async def serve(call: ToolCall) -> str:
        return await executor.execute(call)

    return serve


def plan_scenario(
    spec: ScenarioSpec, models: dict[str, ModelClient], scenario: LoadedScenario | None = None
) -> ScenarioPlan:
    """Resolve every reachable agent; name errors are the scenario's construction errors."""
    plan = ScenarioPlan(spec.entry_agent)
    for name in _reachable(spec):
        agent = spec.agents[name]
        policy = (
            build_policy(agent.policy, agent=name, scenario=scenario)
            if agent.policy is not None
            else HandoffPolicy()
        )
        plan.agents[name] = AgentPlan(
            name=name,
            spec=agent,
            model=models[name],
            tools=[
                fake_tool(t, spec.tools[t], plan.tool_runs, recorded=spec.recorded is not None)
                for t in agent.tools
            ],
            mounts=[_mount_plan(m) for m in agent.mounts()],
            policy=policy,
            fallback=_fallback(agent),
        )
    return plan


def _unused_steps(
    scenario: LoadedScenario, models: Iterable[object], error: BaseException | None
) -> list[BaseException]:
    """A recording's steps no request used, as the default runtime finds them: under a
    matrix variant's own policies (a what-if) only in the lanes requests reached."""
    variant = scenario.variant_spec
    what_if = variant is not None and bool(variant.policies)
    return unused_recorded_steps(models, error, reached_only=what_if)


def native_arguments(arguments: str, key: str) -> str:
    """A scenario's delegation arguments in the framework's shape: ``{key: <the input>}``.

    A scenario delegates with ``{task, context}`` (our runtime's shape); the framework's
    delegation takes one text parameter (``input`` for ``as_tool``). Such arguments
    become that parameter, holding the text our runtime would hand the sub-agent
    (``resolve_input``: the task, then the context). Anything else — ``{}``, other keys,
    text that is not a JSON object — reaches the framework unchanged, so its own
    validation answers it.
    """
    try:
        value = parse_json(arguments)
    except JsonProblem:
        return arguments
    if not isinstance(value, dict) or not isinstance(value.get("task"), str):
        return arguments
    if not set(value) <= {"task", "context"}:
        return arguments
    if value.get("context") is not None and not isinstance(value["context"], str):
        return arguments
    return json.dumps({key: resolve_input(arguments)})


class NativeArguments:
    """A scenario's model whose calls of delegation tools use the framework's own shape."""

    def __init__(self, client: ModelClient, tools: frozenset[str], key: str) -> None:
        self.client = client
        self.tools = tools
        self.key = key
        self.model_name = str(getattr(client, "model_name", None) or type(client).__name__)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The scenario model's answer, its delegation calls rewritten (see native_arguments)."""
        response = await self.client.complete(request)
        calls = tuple(
            ToolCall(c.id, c.name, native_arguments(c.arguments, self.key))
            if c.name in self.tools and isinstance(c.arguments, str)
            else c
            for c in response.tool_calls
        )
        if calls == tuple(response.tool_calls):
            return response
        return ModelResponse(text=response.text, tool_calls=calls, usage=response.usage)


class FrameworkRuntime(ABC, Generic[AgentT, StateT]):
    """A ``ScenarioRuntime`` that builds a scenario's agents on a framework and runs them.

    Subclasses say how an agent is built (:meth:`build_agent`), how one turn runs
    (:meth:`run_turn`) and how the framework is captured (:meth:`capture`).
    """

    framework: ClassVar[str] = "framework"
    native_input: ClassVar[str] = "input"
    """The one parameter of the framework's delegation tool a scenario's ``task`` maps to."""

    def __init__(self, model_factories: Sequence[ModelFactory] = ()) -> None:
        self.model_factories = tuple(model_factories)
        self.replaying_native = False
        """The scenario is a recording made on this framework: its calls are replayed as
        they were made (arguments and results in the framework's own shape)."""

    # -- what a framework provides --------------------------------------------------------

    @abstractmethod
    def build_agent(
        self, plan: AgentPlan, children: dict[str, AgentT], plans: dict[str, AgentPlan]
    ) -> AgentT:
        """The framework agent of ``plan``; ``children`` holds its mounted agents, built,
        and ``plans`` every agent's plan by name."""

    @abstractmethod
    def run_turn(
        self, entry: AgentT, plan: AgentPlan, text: str, previous: StateT | None
    ) -> Awaitable[tuple[str | None, StateT]]:
        """Run one user turn (after ``previous``, the last turn's result); its output."""

    @abstractmethod
    def capture(self) -> Capture:
        """A fresh capture of the framework's runs."""

    def around(self) -> AbstractContextManager[None]:
        """A context the whole run needs (say, no real model request)."""
        return nullcontext()

    # -- the ScenarioRuntime protocol -----------------------------------------------------

    def run(self, scenario: LoadedScenario, *, observers: Sequence[object] = ()) -> ScenarioRun:
        """Run every turn; :class:`ScenarioNotApplicable` when the framework cannot."""
        spec = scenario.spec
        reason = not_applicable(spec)
        if reason is not None:
            raise ScenarioNotApplicable(self.framework, reason)

        def locate(field: str) -> str:
            return f"{scenario.path}:{scenario.location(field)}"

        recorded = spec.recorded
        self.replaying_native = recorded is not None and recorded.runtime == self.framework
        models = build_models(spec, self.model_factories, locate)
        runs: dict[str, int] = {}
        try:
            plan = plan_scenario(spec, models, scenario)
            runs = plan.tool_runs
            self._native(plan)
            entry = self._build(plan)
        except Exception as exc:  # construction errors are outcomes a scenario may expect
            return ScenarioRun(Trace(), [], exc, 0.0, None, runs)
        outputs: list[str | None] = []
        top = plan.agents[plan.entry]

        async def turns() -> None:
            previous: StateT | None = None
            for turn in spec.turns():
                output, previous = await self.run_turn(entry, top, turn.input, previous)
                outputs.append(output)

        simulated = simulate_with(
            self.capture,
            turns,
            seed=scenario.seed,
            wall_clock=False,
            deadline=DEFAULT_DEADLINE,
            raise_errors=False,
            around=self.around,
            observers=observers,
        )
        return ScenarioRun(
            simulated.trace,
            outputs,
            simulated.error,
            simulated.elapsed_ms,
            None,
            plan.tool_runs.snapshot(),
            step_failures=_unused_steps(scenario, models.values(), simulated.error),
        )

    def _native(self, plan: ScenarioPlan) -> None:
        """Each delegating agent's model calls its delegations in the framework's shape.

        A recording made on this framework already holds the framework's own arguments:
        they are replayed as they were recorded, never translated again.
        """
        if self.replaying_native:
            return
        for agent in plan.agents.values():
            if agent.mounts:
                tools = frozenset(m.tool_name for m in agent.mounts)
                agent.model = NativeArguments(agent.model, tools, self.native_input)

    def _build(self, plan: ScenarioPlan) -> AgentT:
        """Build the agents children first; an agent mounted twice is one framework agent."""
        built: dict[str, AgentT] = {}

        def build(name: str) -> AgentT:
            if name not in built:
                agent = plan.agents[name]
                children = {m.agent: build(m.agent) for m in agent.mounts}
                built[name] = self.build_agent(agent, children, plan.agents)
            return built[name]

        return build(plan.entry)
