"""Hooks a downstream project implements to extend scenario runs.

Implement them in a ``conftest.py`` or a plugin; the plugin adds these specs in
``pytest_addhooks``. Each hook also applies to the ``run_scenario`` fixture, and
the ``handoff-sim`` command calls them too, with ``config=None``, for the modules
of the ``handoff_sim.plugins`` entry point group and those named with ``-p``.

* ``pytest_handoff_make_model`` — add a model kind the scenario format does not know;
* ``pytest_handoff_runtime`` — run a scenario on another framework (a conformance suite);
* ``pytest_handoff_event`` — observe every runtime event of a scenario run;
* ``pytest_handoff_scenario_result`` — see each result before the plugin checks it.

The specifications live with the runtime (the command needs them without pytest); this
module is their documented home. It imports nothing heavy: it is loaded at pytest start-up.
"""

from handoff_sim._plugin_contract import (
    pytest_handoff_event,
    pytest_handoff_make_model,
    pytest_handoff_runtime,
    pytest_handoff_scenario_result,
)

__all__ = [
    "pytest_handoff_event",
    "pytest_handoff_make_model",
    "pytest_handoff_runtime",
    "pytest_handoff_scenario_result",
]
