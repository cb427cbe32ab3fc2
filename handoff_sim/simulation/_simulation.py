"""``simulate`` and ``Simulation``: runs on a virtual-time loop, deterministic for a seed."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Coroutine, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from handoff_sim._agent import require_agent
from handoff_sim._context import Budget, RunEnvironment, use_environment
from handoff_sim._limits import DEFAULT_MAX_HANDOFFS, DEFAULT_MAX_MODEL_CALLS
from handoff_sim.errors import RunError, VirtualTimeError
from handoff_sim.simulation._clock_patch import PATCH
from handoff_sim.simulation._virtual_loop import VirtualTimeLoop
from handoff_sim.simulation._wallclock import WallClock
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim._agent import Agent, RunResult
    from handoff_sim._sessions import Session

__all__ = ["DEFAULT_DEADLINE", "DEFAULT_START", "Simulation", "simulate"]

DEFAULT_START = datetime(2026, 1, 1, tzinfo=UTC)
DEFAULT_DEADLINE = 30 * 24 * 3600.0  # 30 virtual days: a run that goes longer is stuck

T = TypeVar("T")

# How often unwinding may be interrupted again (a task re-raising KeyboardInterrupt or
# SystemExit while it is cancelled) before it gives up; each round ends at least one task.
_UNWIND_ROUNDS = 100
_NO_PATCH: AbstractContextManager[None] = contextlib.nullcontext()


class Simulation:
    """One virtual-time loop and one seeded run environment, for one or more turns.

    Turns share the clock, the ids and the trace, so a multi-turn conversation
    reads as one timeline::

        with Simulation(seed=7) as sim:
            first = sim.run(agent, "hello")
            sim.run(agent, "again", session=first.session_id)
            print(sim.trace.render())

    With ``wall_clock=True`` code run by the simulation that reads ``time.time()`` or
    ``datetime.now()`` sees ``start`` plus the virtual time; other threads, and code
    outside the simulation, keep the real clock. A ``KeyboardInterrupt`` or
    ``SystemExit`` that stops a run is re-raised once every task of the run has been
    cancelled and has ended, so every open start has its end.
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        observers: Sequence[object] = (),
        wall_clock: bool = True,
        start: datetime = DEFAULT_START,
        deadline: float | None = DEFAULT_DEADLINE,
        max_model_calls: int = DEFAULT_MAX_MODEL_CALLS,
        max_handoffs: int = DEFAULT_MAX_HANDOFFS,
    ) -> None:
        budget = Budget(max_model_calls, max_handoffs)  # checked before the loop exists
        self.seed = seed
        self._start = start
        self._loop = loop = VirtualTimeLoop(deadline=deadline)
        # Not asyncio.Runner: it re-installs a SIGINT handler on every run, which costs
        # more than a short simulated run itself.
        self._context = contextvars.copy_context()
        self._patch: AbstractContextManager[None] = _NO_PATCH
        if wall_clock:
            WallClock(start, lambda: loop.now_us).bind(self._context)
            self._patch = PATCH
        self.environment = RunEnvironment(
            seed=seed, observers=tuple(observers), clock=self._loop.time, budget=budget
        )

    def __enter__(self) -> Simulation:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Cancel what is left (in creation order) and close the loop."""
        loop = self._loop
        if loop.is_closed():
            return
        if asyncio._get_running_loop() is not None:  # only reachable after a refused run
            loop.close()
            return
        try:
            if asyncio.all_tasks(loop):  # leftovers run their clean-up under the wall clock
                with self._patch:
                    self._cancel_all()
            loop.shut_down()
        finally:
            loop.close()

    @property
    def trace(self) -> Trace:
        """Every event of every turn so far."""
        return Trace(self.environment.events)

    @property
    def now(self) -> float:
        """Virtual seconds elapsed."""
        return self._loop.time()

    def run(
        self, agent: Agent, user_input: str, *, session: Session | str | None = None
    ) -> RunResult:
        """Run one turn of ``agent`` to its answer, in virtual time."""
        require_agent(agent, "Simulation.run()")
        return self.run_coroutine(agent.arun(user_input, session=session))

    def run_coroutine(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run any coroutine inside this simulation (its clock, ids and observers)."""
        self._refuse(coro)

        async def main() -> T:
            with use_environment(self.environment):
                return await coro

        with self._patch:
            return self._run_main(main())

    def _refuse(self, coro: Coroutine[Any, Any, T]) -> None:
        problem = None
        if self._loop.is_closed():
            problem = "this Simulation is closed"
        elif asyncio._get_running_loop() is not None:
            problem = (
                "simulate() and Simulation.run() drive their own virtual-time loop and cannot "
                "run inside a running event loop; call them from synchronous code (a plain "
                "test function)"
            )
        if problem is not None:
            coro.close()
            raise RunError(problem)

    def _run_main(self, coro: Coroutine[Any, Any, T]) -> T:
        task = self._loop.create_task(coro, context=self._context)
        try:
            return self._loop.run_until_complete(task)
        except VirtualTimeError:
            self._unwind(task)
            raise
        except (KeyboardInterrupt, SystemExit):
            # Ctrl-C reaches the loop wherever it is: in its own code, in a task the user
            # made, in a tool. Every task is cancelled at once, so a wake-up already queued
            # cannot carry the interrupt into another task; then it propagates.
            self._cancel_all()
            if task.done() and not task.cancelled():
                task.exception()  # raised from here: retrieved, not "never retrieved"
            raise

    def _unwind(self, task: asyncio.Task[Any]) -> None:
        """End a stuck run top-down, so every open start ends in a deterministic order."""
        if not task.done():
            task.cancel()
            self._loop.lift_deadline()
            self._settle(task)
        self._cancel_all()

    def _cancel_all(self) -> None:
        """Cancel every task left on the loop (in creation order) and wait until all ended."""
        for _ in range(_UNWIND_ROUNDS):
            pending = sorted(asyncio.all_tasks(self._loop), key=_creation_order)
            if not pending:
                return
            for task in pending:
                task.cancel()
            self._loop.lift_deadline()
            self._settle(asyncio.gather(*pending, return_exceptions=True))

    def _settle(self, future: asyncio.Future[Any]) -> None:
        """Run the loop until ``future`` is done, whatever it ends with.

        A ``KeyboardInterrupt`` or ``SystemExit`` raised meanwhile (a task re-raising it
        as it is cancelled) does not stop the unwinding; a stuck loop does.
        """
        for _ in range(_UNWIND_ROUNDS):
            try:
                self._loop.run_until_complete(future)
            except (KeyboardInterrupt, SystemExit):
                if not future.done():
                    continue
            except BaseException:  # the run's own outcome, or stuck: nothing more to run
                return
            return


def _creation_order(task: asyncio.Task[Any]) -> tuple[int, str]:
    name = task.get_name()
    number = name.rpartition("-")[2]
    return (int(number), name) if number.isdigit() else (0, name)


def simulate(
    agent: Agent,
    user_input: str,
    *,
    seed: int = 0,
    observers: Sequence[object] = (),
    session: Session | str | None = None,
    wall_clock: bool = True,
    deadline: float | None = DEFAULT_DEADLINE,
    max_model_calls: int = DEFAULT_MAX_MODEL_CALLS,
    max_handoffs: int = DEFAULT_MAX_HANDOFFS,
) -> RunResult:
    """Run ``agent`` on ``user_input`` in virtual time: deterministic, no real sleeping.

    ``max_model_calls`` and ``max_handoffs`` cap the run's work (the run budget).
    """
    require_agent(agent, "simulate()")
    with Simulation(
        seed=seed,
        observers=observers,
        wall_clock=wall_clock,
        deadline=deadline,
        max_model_calls=max_model_calls,
        max_handoffs=max_handoffs,
    ) as sim:
        return sim.run(agent, user_input, session=session)
