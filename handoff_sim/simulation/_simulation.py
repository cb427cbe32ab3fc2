"""``simulate`` and ``Simulation``: runs on a virtual-time loop, deterministic for a seed."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Coroutine, Sequence
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from handoff_sim._context import RunEnvironment, use_environment
from handoff_sim.errors import RunError, VirtualTimeError
from handoff_sim.simulation._loop import VirtualTimeLoop
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim.agent import Agent, RunResult
    from handoff_sim.sessions import Session

__all__ = ["DEFAULT_DEADLINE", "DEFAULT_START", "Simulation", "simulate"]

DEFAULT_START = datetime(2026, 1, 1, tzinfo=UTC)
DEFAULT_DEADLINE = 30 * 24 * 3600.0  # 30 virtual days: a run that goes longer is stuck

T = TypeVar("T")


class Simulation:
    """One virtual-time loop and one seeded run environment, for one or more turns.

    Turns share the clock, the ids and the trace, so a multi-turn conversation
    reads as one timeline::

        with Simulation(seed=7) as sim:
            first = sim.run(agent, "hello")
            sim.run(agent, "again", session=first.session_id)
            print(sim.trace.render())

    With ``wall_clock=True`` user code that reads ``time.time()`` or
    ``datetime.now()`` sees ``start`` plus the virtual time (freezegun).
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        observers: Sequence[object] = (),
        wall_clock: bool = True,
        start: datetime = DEFAULT_START,
        deadline: float | None = DEFAULT_DEADLINE,
    ) -> None:
        self.seed = seed
        self._start = start
        self._wall_clock = wall_clock
        self._loop = VirtualTimeLoop(deadline=deadline)
        # Not asyncio.Runner: it re-installs a SIGINT handler on every run, which costs
        # more than a short simulated run itself.
        self._context = contextvars.copy_context()
        self._main_task: asyncio.Task[Any] | None = None
        self.environment = RunEnvironment(
            seed=seed, observers=tuple(observers), clock=self._loop.time
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
            pending = sorted(asyncio.all_tasks(loop), key=_creation_order)
            for task in pending:
                task.cancel()
            if pending:
                loop.lift_deadline()
                gathered = asyncio.gather(*pending, return_exceptions=True)
                with contextlib.suppress(VirtualTimeError):
                    loop.run_until_complete(gathered)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
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
        return self.run_coroutine(agent.arun(user_input, session=session))

    def run_coroutine(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run any coroutine inside this simulation (its clock, ids and observers)."""
        self._refuse(coro)

        async def main() -> T:
            self._main_task = asyncio.current_task()
            with use_environment(self.environment):
                return await coro

        if not self._wall_clock:
            return self._run_main(main())
        from freezegun import freeze_time

        moment = self._start + timedelta(microseconds=self._loop.now_us)
        with freeze_time(moment) as frozen:
            start = self._start
            self._loop.on_advance = lambda us: frozen.move_to(start + timedelta(microseconds=us))
            try:
                return self._run_main(main())
            finally:
                self._loop.on_advance = None

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
            self._unwind()
            raise

    def _unwind(self) -> None:
        """Cancel the stuck run top-down, so every open handoff ends, deterministically (E3, E6)."""
        task, self._main_task = self._main_task, None
        if task is None or task.done():
            return
        task.cancel()
        self._loop.lift_deadline()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            self._loop.run_until_complete(task)


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
) -> RunResult:
    """Run ``agent`` on ``user_input`` in virtual time: deterministic, no real sleeping (V1)."""
    with Simulation(
        seed=seed, observers=observers, wall_clock=wall_clock, deadline=deadline
    ) as sim:
        return sim.run(agent, user_input, session=session)
