"""``clock: real``: a scenario's turns on a real asyncio event loop, through ``Agent.arun``.

One loop (``asyncio.Runner``) and one seeded run environment serve every turn, as one
``Simulation`` does in virtual time, so ids, event numbers and sessions carry on from
turn to turn. The whole run has a real deadline: a run that goes over it stops with a
``RunError``, every open handoff ended, so a scenario can never hang a CI job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from handoff_sim._context import RunEnvironment, use_environment
from handoff_sim._limits import MAX_REAL_RUN_SECONDS
from handoff_sim.errors import RunError
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim.agent import Agent, RunResult
    from handoff_sim.sessions import Session

__all__ = ["RealTimeRun", "real_time"]

T = TypeVar("T")


class RealTimeRun:
    """The real loop, the run environment and the deadline shared by a scenario's turns."""

    def __init__(self, runner: asyncio.Runner, environment: RunEnvironment) -> None:
        self._runner = runner
        self.environment = environment
        self.deadline = runner.get_loop().time() + MAX_REAL_RUN_SECONDS
        self.expired = False

    @property
    def trace(self) -> Trace:
        """Every event of every turn so far."""
        return Trace(self.environment.events)

    @property
    def now(self) -> float:
        """Real seconds since the first turn could start."""
        return self.environment.now_us() / 1_000_000

    def run(self, agent: Agent, user_input: str, *, session: Session | str | None) -> RunResult:
        """One turn of ``agent`` to its answer, on the real loop, before the deadline."""
        return self._run(agent.arun(user_input, session=session))

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        async def main() -> T:
            with use_environment(self.environment):
                timeout = asyncio.timeout_at(self.deadline)
                try:
                    async with timeout:
                        return await coro
                except TimeoutError:
                    if not timeout.expired():
                        raise  # the run's own TimeoutError, not the deadline
                    self.expired = True
                    raise RunError(
                        f"the run went over {MAX_REAL_RUN_SECONDS:g}s of real time "
                        "(clock: real); every handoff was ended"
                    ) from None

        return self._runner.run(main())


@contextmanager
def real_time(seed: int, observers: Sequence[object]) -> Iterator[RealTimeRun]:
    """A :class:`RealTimeRun` on a fresh event loop, closed (leftover tasks cancelled) after."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RunError(
            "a clock: real scenario starts its own event loop and cannot run inside a "
            "running one; run it from synchronous code (a plain test function)"
        )
    with asyncio.Runner() as runner:

        async def environment() -> RunEnvironment:  # its clock is the running loop's
            return RunEnvironment(seed=seed, observers=tuple(observers))

        yield RealTimeRun(runner, runner.run(environment()))
