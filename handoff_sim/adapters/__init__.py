"""Adapters that run handoff-sim's fakes, traces, policy and virtual time on agent frameworks.

One module per framework, each behind an optional extra so the core never imports
a framework:

- ``handoff_sim.adapters.openai_agents`` (``pip install 'handoff-sim[openai-agents]'``)
- ``handoff_sim.adapters.pydantic_ai`` (``pip install 'handoff-sim[pydantic-ai]'``)

Each offers ``SimModel`` (a fake model of ours as the framework's model), ``capture()``
(a framework run recorded as a :class:`~handoff_sim.Trace`), ``governed(...)`` (a
:class:`~handoff_sim.HandoffPolicy` applied to a delegation) and ``simulate_run(...)``
(a framework run on the virtual-time loop). Importing one without its extra raises
:class:`MissingExtraError`, which names the extra to install.
"""

from handoff_sim.adapters._errors import CaptureError, MissingExtraError

__all__ = ["CaptureError", "MissingExtraError"]
