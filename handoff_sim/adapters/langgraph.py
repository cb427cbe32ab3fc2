"""handoff-sim for LangGraph and LangChain (``pip install 'handoff-sim[langgraph]'``).

- :class:`SimChatModel` — our fake models as a langchain-core chat model (tools bound,
  streaming, usage, latency in virtual time); :data:`SimModel` is the same class, the
  name the other adapters use.
- :func:`capture` — a LangGraph run recorded as a handoff-sim :class:`~handoff_sim.Trace`.
- :func:`governed` — a compiled agent as a LangChain tool under a
  :class:`~handoff_sim.HandoffPolicy`.
- :func:`governed_handoffs` — the policy's admission on supervisor and swarm handoff tools.
- :func:`simulate_run` — a LangGraph run (``ainvoke``/``astream``) on the virtual-time
  loop, captured, and the same on every run of a seed.

How LangGraph's concepts map onto ours, and what escapes virtual time, is in
``docs/adapters.md``.
"""

from __future__ import annotations

from handoff_sim.adapters._errors import require_extra

require_extra(
    "langgraph",
    adapter="handoff_sim.adapters.langgraph",
    extra="langgraph",
    package="langgraph",
)
require_extra(
    "langchain_core",
    adapter="handoff_sim.adapters.langgraph",
    extra="langgraph",
    package="langchain-core",
)

from handoff_sim.adapters._lg_capture import LangGraphCapture  # noqa: E402
from handoff_sim.adapters._lg_governed import governed  # noqa: E402
from handoff_sim.adapters._lg_handoffs import governed_handoffs  # noqa: E402
from handoff_sim.adapters._lg_model import SimChatModel  # noqa: E402
from handoff_sim.adapters._lg_simulate import simulate_run  # noqa: E402
from handoff_sim.adapters._lg_sync import SyncInvokeError  # noqa: E402

SimModel = SimChatModel
"""The same class as :class:`SimChatModel`, under the name every adapter exports."""

__all__ = [
    "SimChatModel",
    "SimModel",
    "SyncInvokeError",
    "capture",
    "governed",
    "governed_handoffs",
    "simulate_run",
]


def capture(*, seed: int = 0) -> LangGraphCapture:
    """Record the LangGraph runs of a ``with`` block as a handoff-sim trace.

    ::

        with capture() as cap:
            result = await graph.ainvoke({"messages": [("user", "hello")]})
        assert not cap.trace.unbalanced()
        print(cap.trace.render_tree())

    Every agent graph run becomes a run, chat model calls ``model_request``/
    ``model_response``, tool calls ``tool_start``/``tool_end``, a graph run inside a
    tool call (an agent used as a tool) a handoff with its attempt, and a
    ``Command(goto=...)`` a tool returns (supervisor and swarm handoff tools, the
    supervisor's automatic ``transfer_back_to_*``) a control transfer listed in
    :attr:`~LangGraphCapture.transfers`. LangChain's own callbacks are the observation
    point: a handler of ours joins every run started in the block (through
    langchain-core's ``register_configure_hook``); nothing is patched.
    """
    return LangGraphCapture(seed=seed)
