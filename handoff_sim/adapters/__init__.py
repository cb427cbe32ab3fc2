"""Adapters that run handoff-sim's fakes, traces, policy and virtual time on agent frameworks.

One module per framework, each behind an optional extra so the core never imports
a framework:

- ``handoff_sim.adapters.openai_agents`` (``pip install 'handoff-sim[openai-agents]'``)
- ``handoff_sim.adapters.pydantic_ai`` (``pip install 'handoff-sim[pydantic-ai]'``)
- ``handoff_sim.adapters.langgraph`` (``pip install 'handoff-sim[langgraph]'``), whose fake
  model is ``SimChatModel`` (a langchain-core chat model; ``SimModel`` is the same class)

Each offers ``SimModel`` (a fake model of ours as the framework's model), ``capture()``
(a framework run recorded as a :class:`~handoff_sim.Trace`), ``governed(...)`` (a
:class:`~handoff_sim.HandoffPolicy` applied to a delegation) and ``simulate_run(...)``
(a framework run on the virtual-time loop). Importing one without its extra raises
:class:`MissingExtraError`, which names the extra to install.
:class:`SimulatedRun` is what every ``simulate_run`` returns.

Scenario files run on a framework through :func:`runtime_factory` (``handoff-sim run
--runtime openai-agents``, ``pytest --handoff-runtime pydantic-ai``); a scenario that
needs a feature the framework lacks raises :class:`ScenarioNotApplicable`.
:class:`Transfer` is a control transfer as ``capture().transfers`` lists it.
"""

from handoff_sim.adapters._errors import (
    CaptureError,
    GovernanceError,
    MissingExtraError,
    ScenarioNotApplicable,
)
from handoff_sim.adapters._registry import runtime_factory
from handoff_sim.adapters._simulate import SimulatedRun
from handoff_sim.adapters._transfer import Transfer

__all__ = [
    "CaptureError",
    "GovernanceError",
    "MissingExtraError",
    "ScenarioNotApplicable",
    "SimulatedRun",
    "Transfer",
    "runtime_factory",
]
