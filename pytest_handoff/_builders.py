"""What the fixtures hand out: an agent builder, a model factory, a recorder, a clock.

Imported lazily by ``_fixtures.py``: it pulls in the whole runtime.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar, cast, overload

from handoff_sim import Agent, HandoffPolicy, SubAgent, Tool, Trace, hookimpl
from handoff_sim.errors import UnconsumedStepsError
from handoff_sim.events import Event
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel

__all__ = ["AgentBuilder", "EventRecorder", "ScriptedModelFactory", "VirtualClock", "delegate"]

EventT = TypeVar("EventT", bound=Event)
OtherEventT = TypeVar("OtherEventT", bound=Event)


def delegate(
    tool: str,
    task: str,
    *,
    context: str | None = None,
    id: str | None = None,
    latency: float | str | None = None,
) -> dict[str, Any]:
    """A script step whose one tool call hands ``task`` to the sub-agent tool ``tool``."""
    arguments: dict[str, Any] = {"task": task}
    if context is not None:
        arguments["context"] = context
    call: dict[str, Any] = {"name": tool, "arguments": arguments}
    if id is not None:
        call["id"] = id
    step: dict[str, Any] = {"tool_calls": [call]}
    if latency is not None:
        step["latency"] = latency
    return step


class ScriptedModelFactory:
    """Makes ``ScriptedModel``s and remembers them, so a test can check every script was used."""

    def __init__(self) -> None:
        self.models: list[ScriptedModel] = []

    def __call__(self, steps: Sequence[Any] = (), *, name: str | None = None) -> ScriptedModel:
        """A strict scripted model; a plain string step is a text answer."""
        model = ScriptedModel(list(steps), name=name)
        self.models.append(model)
        return model

    def assert_complete(self) -> None:
        """Raise ``UnconsumedStepsError`` naming every model that has unused steps."""
        __tracebackhide__ = True
        problems = []
        for model in self.models:
            try:
                model.assert_complete()
            except UnconsumedStepsError as exc:
                problems.append(str(exc))
        if problems:
            raise UnconsumedStepsError("; ".join(problems))


class AgentBuilder:
    """Builds agents with scripted models in a line each::

        reviewer = agent_builder("reviewer", ["LGTM"])
        manager = agent_builder(
            "manager",
            [agent_builder.delegate("subagent_reviewer", "review auth"), "done"],
            subagents=[reviewer],
            policy={"max_retries": 1, "timeout": "5s"},
        )

    ``subagents`` takes ``SubAgent``s or plain ``Agent``s (mounted under their own
    name); ``policy`` takes a ``HandoffPolicy`` or its fields as a mapping.
    """

    delegate = staticmethod(delegate)

    def __init__(self, models: ScriptedModelFactory | None = None) -> None:
        self.models = models or ScriptedModelFactory()
        self.agents: list[Agent] = []

    def __call__(
        self,
        name: str,
        script: Sequence[Any] = (),
        *,
        subagents: Iterable[SubAgent | Agent] = (),
        tools: Iterable[Tool] = (),
        policy: HandoffPolicy | Mapping[str, Any] | None = None,
        **agent_options: Any,
    ) -> Agent:
        """An ``Agent`` called ``name`` whose model answers with ``script``."""
        model = self.models(script, name=name)
        agent = Agent(
            name,
            model,
            tools=tools,
            subagents=[self._mount(s) for s in subagents],
            handoff_policy=self._policy(policy),
            **agent_options,
        )
        self.agents.append(agent)
        return agent

    @staticmethod
    def _mount(sub: SubAgent | Agent) -> SubAgent:
        return sub if isinstance(sub, SubAgent) else SubAgent(sub.name, "", sub)

    @staticmethod
    def _policy(policy: HandoffPolicy | Mapping[str, Any] | None) -> HandoffPolicy | None:
        if policy is None or isinstance(policy, HandoffPolicy):
            return policy
        return HandoffPolicy(**dict(policy))

    def assert_scripts_complete(self) -> None:
        """Raise if any agent's script has steps no model call used."""
        __tracebackhide__ = True
        self.models.assert_complete()


class EventRecorder:
    """A runtime observer (a pluggy plugin) that keeps every event it sees."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        """Keep ``event``."""
        self.events.append(event)

    @property
    def trace(self) -> Trace:
        """The events seen so far, as a ``Trace``."""
        return Trace(self.events)

    @overload
    def of_type(self, kind: type[EventT], /) -> list[EventT]: ...
    @overload
    def of_type(
        self, first: type[EventT], second: type[OtherEventT], /
    ) -> list[EventT | OtherEventT]: ...
    @overload
    def of_type(self, *types: str | type[Event]) -> list[Event]: ...
    def of_type(self, *types: str | type[EventT]) -> list[EventT]:
        """Events of the given types (names or classes), typed as :meth:`Trace.of_type`."""
        return cast("list[EventT]", self.trace.of_type(*types))

    def clear(self) -> None:
        """Forget the events seen so far."""
        self.events.clear()

    def __len__(self) -> int:
        return len(self.events)


class VirtualClock:
    """The clock of a ``Simulation``: read it, or let virtual time pass."""

    def __init__(self, simulation: Simulation) -> None:
        self.simulation = simulation

    @property
    def now(self) -> float:
        """Virtual seconds since the simulation began."""
        return self.simulation.now

    @property
    def now_ms(self) -> float:
        """Virtual milliseconds since the simulation began."""
        return round(self.simulation.now * 1000, 3)

    def wall_time(self) -> datetime:
        """``datetime.now(UTC)`` as code inside the simulation sees it."""

        async def now() -> datetime:
            return datetime.now(UTC)

        return self.simulation.run_coroutine(now())

    def advance(self, seconds: float) -> float:
        """Let ``seconds`` of virtual time pass (timers due meanwhile fire); the new ``now``."""
        if seconds < 0:
            raise ValueError(f"cannot move virtual time backwards by {seconds!r} s")
        self.simulation.run_coroutine(asyncio.sleep(seconds))
        return self.now
