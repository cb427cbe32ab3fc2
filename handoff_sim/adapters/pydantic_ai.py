"""handoff-sim for pydantic-ai (``pip install 'handoff-sim[pydantic-ai]'``).

- :class:`SimModel` — our fake models as a pydantic-ai ``Model``.
- :func:`capture` — a pydantic-ai run recorded as a handoff-sim :class:`~handoff_sim.Trace`.
- :func:`governed` — a delegation tool under a :class:`~handoff_sim.HandoffPolicy`.
- :func:`governed_tool` — the policy on your own delegation tool function.
- :func:`retryable` — which errors of a governed delegate are retried.
- :func:`simulate_run` — a pydantic-ai run on the virtual-time loop, captured.
- :class:`RecordingModel` — records every call of a real pydantic-ai ``Model``.
- :func:`record_models` — every agent of a graph records its model calls, by name.

How pydantic-ai's concepts map onto ours, and what escapes virtual time, is in
``docs/adapters.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from handoff_sim.adapters._errors import require_extra

require_extra(
    "pydantic_ai",
    adapter="handoff_sim.adapters.pydantic_ai",
    extra="pydantic-ai",
    package="pydantic-ai-slim",
)

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.models import override_allow_model_requests  # noqa: E402

from handoff_sim.adapters._pai_capture import PydanticAICapture  # noqa: E402
from handoff_sim.adapters._pai_governed import governed  # noqa: E402
from handoff_sim.adapters._pai_governed_tool import governed_tool  # noqa: E402
from handoff_sim.adapters._pai_model import SimModel  # noqa: E402
from handoff_sim.adapters._pai_record import RecordingModel  # noqa: E402
from handoff_sim.adapters._pai_record_run import record_models  # noqa: E402
from handoff_sim.adapters._pai_results import retryable  # noqa: E402
from handoff_sim.adapters._pai_sync import (  # noqa: E402
    SyncEntryPointError,
    refusing_sync_entry_points,
)
from handoff_sim.adapters._simulate import (  # noqa: E402
    InlineExecutor,
    RunInput,
    SimulatedRun,
    T,
    simulate_with,
)
from handoff_sim.simulation._simulation import DEFAULT_DEADLINE  # noqa: E402

__all__ = [
    "RecordingModel",
    "SimModel",
    "capture",
    "governed",
    "governed_tool",
    "record_models",
    "retryable",
    "simulate_run",
]


def capture(*, seed: int = 0) -> PydanticAICapture:
    """Record the pydantic-ai runs of a ``with`` block as a handoff-sim trace.

    ::

        with capture() as cap:
            result = await triage.run("hello")
        assert not cap.trace.unbalanced()
        print(cap.trace.render_tree())

    Agent runs become runs, model requests ``model_request``/``model_response``,
    tool calls ``tool_start``/``tool_end``, and an agent run inside a tool call (the
    way pydantic-ai delegates) a handoff with its attempt. Every agent is
    instrumented inside the block (``Agent.instrument_all``) with an in-memory
    tracer of ours; nothing is exported.
    """
    return PydanticAICapture(seed=seed)


@contextmanager
def _offline() -> Iterator[None]:
    """No real model request, and sync functions run inline instead of on worker threads."""
    with (
        override_allow_model_requests(False),
        Agent.using_thread_executor(InlineExecutor()),
    ):
        yield


def simulate_run(
    run: RunInput[T],
    *,
    seed: int = 0,
    wall_clock: bool = True,
    deadline: float | None = DEFAULT_DEADLINE,
    raise_errors: bool = True,
) -> SimulatedRun[T]:
    """Run a pydantic-ai run (a coroutine, or a function returning one) in virtual time, captured.

    ``simulate_run(lambda: agent.run("hi"))`` returns the run's result, its trace and
    its virtual duration. Latencies and timeouts cost no wall time; a run in which
    every task waits forever raises ``VirtualDeadlockError``. Real model requests are
    refused (``ALLOW_MODEL_REQUESTS`` is off) and sync tools run inline, in order.
    With ``raise_errors=False`` an error of the run is returned in ``.error``.
    A sync entry point (``agent.run_sync``) is refused with a ``UserError`` naming the
    async call to pass instead.
    """
    simulated = simulate_with(
        capture,
        refusing_sync_entry_points(run),
        seed=seed,
        wall_clock=wall_clock,
        deadline=deadline,
        raise_errors=raise_errors,
        around=_offline,
    )
    if isinstance(simulated.error, SyncEntryPointError):
        raise simulated.error  # a mistake in the test, not an outcome of the run
    return simulated
