"""handoff-sim for the OpenAI Agents SDK (``pip install 'handoff-sim[openai-agents]'``).

- :class:`SimModel` — our fake models as an ``agents`` ``Model``.
- :func:`capture` — an SDK run recorded as a handoff-sim :class:`~handoff_sim.Trace`.
- :func:`governed` — a :class:`~handoff_sim.HandoffPolicy` on ``agent.as_tool(...)``.
- :func:`governed_handoffs` — the policy's admission on an agent's ``handoffs=[...]``.
- :func:`simulate_run` — an SDK run on the virtual-time loop, captured.
- :class:`RecordingModel` / :func:`record_models` / :func:`recording` — a real model's
  calls recorded, to replay later (``handoff_sim.recording.record`` uses them for an
  SDK agent).

How the SDK's concepts map onto ours, and what escapes virtual time, is in
``docs/adapters.md``.
"""

from __future__ import annotations

import typing as _typing

from handoff_sim._moved import moved_names as _moved_names
from handoff_sim.adapters._errors import require_extra

require_extra(
    "agents",
    adapter="handoff_sim.adapters.openai_agents",
    extra="openai-agents",
    package="openai-agents",
)

from handoff_sim.adapters._oai_capture import OpenAIAgentsCapture  # noqa: E402
from handoff_sim.adapters._oai_governed import HandoffDeniedInRunError, governed  # noqa: E402
from handoff_sim.adapters._oai_handoffs import governed_handoffs  # noqa: E402
from handoff_sim.adapters._oai_model import SimModel  # noqa: E402
from handoff_sim.adapters._oai_record import (  # noqa: E402
    RecordingModel,
    record_models,
    recording,
)
from handoff_sim.adapters._oai_sync import (  # noqa: E402
    SyncEntryPointError,
    refusing_sync_entry_points,
)
from handoff_sim.adapters._simulate import RunInput, SimulatedRun, T, simulate_with  # noqa: E402
from handoff_sim.simulation._simulation import DEFAULT_DEADLINE  # noqa: E402

__all__ = [
    "HandoffDeniedInRunError",
    "RecordingModel",
    "SimModel",
    "capture",
    "governed",
    "governed_handoffs",
    "record_models",
    "recording",
    "simulate_run",
]


def capture(*, seed: int = 0) -> OpenAIAgentsCapture:
    """Record the SDK runs of a ``with`` block as a handoff-sim trace.

    ::

        with capture() as cap:
            result = await Runner.run(triage, "hello")
        assert not cap.trace.unbalanced()
        print(cap.trace.render_tree())

    Agents become runs, model calls ``model_request``/``model_response``, function
    tools ``tool_start``/``tool_end``, an agent run inside a tool (``as_tool``) a
    handoff with its attempt, and a control transfer (``handoffs=[...]``) the
    ``transfer_to_*`` tool call plus a new run in the same session, listed in
    :attr:`~OpenAIAgentsCapture.transfers`. The SDK's tracing stays on inside the
    block but its default exporter is switched off: nothing leaves the process.
    """
    return OpenAIAgentsCapture(seed=seed)


def simulate_run(
    run: RunInput[T],
    *,
    seed: int = 0,
    wall_clock: bool = True,
    deadline: float | None = DEFAULT_DEADLINE,
    raise_errors: bool = True,
) -> SimulatedRun[T]:
    """Run an SDK run (a coroutine, or a function returning one) in virtual time, captured.

    ``simulate_run(Runner.run(agent, "hi"))`` returns the run's result, its trace and
    its virtual duration. Latencies and timeouts cost no wall time; a run in which
    every task waits forever raises ``VirtualDeadlockError``. With
    ``raise_errors=False`` an error of the run is returned in ``.error`` with the
    trace up to it. ``Runner.run_sync`` cannot run on that loop: it is refused with a
    ``UserError`` naming the async call.
    """
    simulated = simulate_with(
        capture,
        refusing_sync_entry_points(run),
        seed=seed,
        wall_clock=wall_clock,
        deadline=deadline,
        raise_errors=raise_errors,
    )
    if isinstance(simulated.error, SyncEntryPointError):
        raise simulated.error  # a mistake in the test, not an outcome of the run
    return simulated


if not _typing.TYPE_CHECKING:
    __getattr__ = _moved_names(
        __name__,
        {
            "Transfer": "handoff_sim.adapters",
        },
    )
