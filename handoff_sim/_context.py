"""Run-scoped state in ContextVars: the environment of a run and the current agent frame.

Nothing here is global: a top-level run (or a Simulation) installs an
environment; every agent run, sub-agents included, installs its own frame, and
asyncio copies both into every task it spawns, so depth counts right in parallel and nested runs.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from typing import Generic, TypeVar

import msgspec

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._hooks import hookimpl, new_plugin_manager
from handoff_sim._limits import DEFAULT_MAX_HANDOFFS, DEFAULT_MAX_MODEL_CALLS, MAX_NESTING
from handoff_sim._sessions import Session
from handoff_sim.errors import BudgetExceededError
from handoff_sim.events import Event, EventStamp

__all__ = [
    "ENVIRONMENT",
    "FRAME",
    "Budget",
    "Frame",
    "RunEnvironment",
    "current_depth",
    "current_environment",
    "current_frame",
    "nesting_below",
    "use_environment",
    "use_frame",
]


class _Recorder:
    """Collects every event of an environment, in emission order."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl(tryfirst=True)
    def handoff_sim_event(self, event: Event) -> None:
        self.events.append(event)


_RAISE_IT = "simulate(), Simulation() or Agent.run()/arun()"


class Budget:
    """The work one top-level run (or one Simulation) may do: model calls and handoffs.

    The caps end any run in bounded work, even one no other bound catches (a sub-agent
    cycle through dynamic targets, a model that never stops delegating). Counters only
    grow, so once a cap is passed every further model call or handoff is refused too.
    """

    __slots__ = ("handoffs", "max_handoffs", "max_model_calls", "model_calls")

    def __init__(
        self,
        max_model_calls: int = DEFAULT_MAX_MODEL_CALLS,
        max_handoffs: int = DEFAULT_MAX_HANDOFFS,
    ) -> None:
        self.max_model_calls = _positive("max_model_calls", max_model_calls)
        self.max_handoffs = _positive("max_handoffs", max_handoffs)
        self.model_calls = 0
        self.handoffs = 0

    def __repr__(self) -> str:
        return (
            f"Budget(model_calls={self.model_calls}/{self.max_model_calls}, "
            f"handoffs={self.handoffs}/{self.max_handoffs})"
        )


_DEFAULTS = {"max_model_calls": DEFAULT_MAX_MODEL_CALLS, "max_handoffs": DEFAULT_MAX_HANDOFFS}


def _positive(field: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigurationError(
            f"{field} must be an int >= 1, got {value!r} (the default is {_DEFAULTS[field]})"
        )
    return value


def _over(resource: str, limit: int, what: str) -> BudgetExceededError:
    return BudgetExceededError(
        resource,
        limit,
        f"run budget exceeded: {what}, over max_{resource}={limit}; a sub-agent cycle or a "
        f"model that never stops is the usual cause; a run that really needs more passes a "
        f"larger max_{resource}= to {_RAISE_IT}",
    )


class RunEnvironment:
    """What every agent run inside one top-level run (or one Simulation) shares.

    It numbers events and runs, draws seeded ids, reads the clock of the running
    loop, hands events to the observers through pluggy and keeps the run's budget.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        observers: tuple[object, ...] = (),
        clock: Callable[[], float] | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.budget = budget or Budget()
        self.rng = random.Random(seed)
        self.recorder = _Recorder()
        self._events = self.recorder.events
        # The recorder is a pluggy plugin like any observer; with no other observer
        # the manager (about half a millisecond to build) and its dispatch are skipped.
        self._hook: Callable[..., object] | None = None
        if observers:
            manager = new_plugin_manager((self.recorder, *observers))
            self._hook = manager.hook.handoff_sim_event
        self._clock = clock or _loop_clock(asyncio.get_running_loop())
        self._origin_us = 0 if clock is not None else self._now_us_raw()
        self._seq = 0
        self._runs = 0

    def _now_us_raw(self) -> int:
        return round(self._clock() * 1_000_000)

    def now_us(self) -> int:
        """Microseconds since the environment started (virtual under simulation)."""
        return round(self._clock() * 1_000_000) - self._origin_us

    def next_run_id(self) -> str:
        """``run-1``, ``run-2``, … in start order."""
        self._runs += 1
        return f"run-{self._runs}"

    def new_id(self, prefix: str) -> str:
        """A seeded id like ``session-1f2e3d4c5b6a``: deterministic for a seed."""
        return f"{prefix}-{self.rng.getrandbits(48):012x}"

    def stamp(
        self, frame: Frame, depth: int | None = None, now_us: int | None = None
    ) -> EventStamp:
        """The next ``seq``, the time now, and ``frame``'s agent, depth and run id.

        ``depth`` overrides the frame's (a handoff's events sit one below its caller);
        ``now_us``, a reading of :meth:`now_us` a duration was taken from, is the time
        instead of a new reading. An event takes it first, by position
        (``SomeEvent(*env.stamp(frame), own_field=...)``), so its own fields, worked
        out after it, are plain values: nothing in them emits an event or reads the clock.
        """
        self._seq = seq = self._seq + 1
        if now_us is None:
            now_us = round(self._clock() * 1_000_000) - self._origin_us
        return (
            seq,
            now_us / 1_000_000,
            frame.agent,
            frame.depth if depth is None else depth,
            frame.run_id,
        )

    def publish(self, event: Event) -> None:
        """Record ``event`` and hand it to the observers."""
        if self._hook is None:
            self._events.append(event)
        else:
            self._hook(event=event)

    def charge_model_call(self, frame: Frame) -> None:
        """Count one model call of ``frame``'s agent; raise once the budget is used up."""
        budget = self.budget
        budget.model_calls += 1
        if budget.model_calls > budget.max_model_calls:
            raise _over(
                "model_calls",
                budget.max_model_calls,
                f"agent {frame.agent!r} asked for model call {budget.model_calls}",
            )

    def charge_handoff(self, frame: Frame, tool: str) -> None:
        """Count one handoff by ``frame``'s agent; raise once the budget is used up."""
        budget = self.budget
        budget.handoffs += 1
        if budget.handoffs > budget.max_handoffs:
            raise _over(
                "handoffs",
                budget.max_handoffs,
                f"agent {frame.agent!r} started handoff {budget.handoffs} (tool {tool!r})",
            )

    @property
    def events(self) -> list[Event]:
        """Every event recorded so far."""
        return self.recorder.events


def _loop_clock(loop: asyncio.AbstractEventLoop) -> Callable[[], float]:
    """``loop.time``; for asyncio's own loops the ``time.monotonic`` it calls, one frame less."""
    if type(loop).time is asyncio.BaseEventLoop.time:
        return time.monotonic
    return loop.time


class Frame(msgspec.Struct, frozen=True):
    """The agent run the current code belongs to.

    ``depth`` is the handoff depth; ``nesting`` counts every agent run this one is
    nested in (handoffs, and runs a tool starts inside a run).
    """

    agent: str
    depth: int
    run_id: str
    session: Session
    handoff_id: str | None = None
    nesting: int = 0


def nesting_below(parent: Frame | None, agent: str) -> int:
    """The nesting of a run of ``agent`` started under ``parent``; refused past the cap.

    Each nested run costs the Python stack; past the cap a clear error comes before
    Python's own RecursionError could.
    """
    if parent is None:
        return 0
    nesting = parent.nesting + 1
    if nesting > MAX_NESTING:
        raise BudgetExceededError(
            "nesting",
            MAX_NESTING,
            f"run budget exceeded: agent {agent!r} would run nested {nesting} deep under "
            f"agent {parent.agent!r}, over the fixed limit of {MAX_NESTING} nested agent runs; "
            "a chain of handoffs this deep is almost always a cycle (through a dynamic "
            "sub-agent target or a tool that runs an agent): bound it with "
            "HandoffPolicy(max_depth=...)",
        )
    return nesting


T = TypeVar("T")

# The hot path reads these two directly; everything else goes through the functions below.
ENVIRONMENT: ContextVar[RunEnvironment | None] = ContextVar("handoff_env", default=None)
FRAME: ContextVar[Frame | None] = ContextVar("handoff_frame", default=None)


def current_environment() -> RunEnvironment | None:
    """The environment of the run in progress, if any."""
    return ENVIRONMENT.get()


def current_frame() -> Frame | None:
    """The frame of the agent run in progress, if any."""
    return FRAME.get()


def current_depth() -> int:
    """Handoff depth of the running agent: 0 at the top, 1 in its sub-agents, …"""
    frame = FRAME.get()
    return 0 if frame is None else frame.depth


class _Using(Generic[T]):
    """Set a ContextVar for a ``with`` block (a class: cheaper than @contextmanager)."""

    __slots__ = ("_token", "_value", "_var")

    def __init__(self, var: ContextVar[T], value: T) -> None:
        self._var = var
        self._value = value
        self._token: Token[T] | None = None

    def __enter__(self) -> None:
        self._token = self._var.set(self._value)

    def __exit__(self, *exc_info: object) -> None:
        assert self._token is not None
        self._var.reset(self._token)


def use_environment(environment: RunEnvironment) -> AbstractContextManager[None]:
    """Install ``environment`` for the code in the block."""
    return _Using(ENVIRONMENT, environment)


def use_frame(frame: Frame) -> AbstractContextManager[None]:
    """Install ``frame`` for the code in the block."""
    return _Using(FRAME, frame)
