"""A recording replays on the runtime it was recorded on.

A recorded step answers the request that runtime sent: its tool names, its delegation
arguments, its message history. So a file whose ``recorded.runtime`` is a framework runs
on that framework when no runtime was chosen (``handoff-sim run REC.yaml``,
``pytest --handoff-scenarios recordings/``), and a runtime chosen explicitly that is not
the recorded one reports the file as not applicable, saying which runtime it needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from handoff_sim.adapters._errors import MissingExtraError, ScenarioNotApplicable
from handoff_sim.adapters._registry import DEFAULT_RUNTIME, RuntimeFactory, runtime_factory

if TYPE_CHECKING:
    from handoff_sim.scenarios import LoadedScenario, ScenarioRuntime
    from handoff_sim.scenarios._build import ModelFactory

__all__ = ["runtime_for"]


def runtime_for(
    scenario: LoadedScenario,
    chosen: str,
    factory: RuntimeFactory | None,
    model_factories: Sequence[ModelFactory],
) -> ScenarioRuntime | None:
    """The runtime that runs ``scenario`` (``None``: handoff-sim's own).

    ``chosen`` is the runtime asked for (the default when none was), ``factory`` its
    factory. Raises :class:`ScenarioNotApplicable` for a recording made on another
    runtime than an explicitly chosen one, or on a framework whose extra is missing.
    """
    recorded = scenario.spec.recorded
    wanted = recorded.runtime if recorded is not None else chosen
    if wanted == chosen:
        return factory(model_factories) if factory is not None else None
    if chosen != DEFAULT_RUNTIME:
        raise ScenarioNotApplicable(
            chosen,
            f"the file is a recording made on {wanted}: its answers fit the requests "
            f"{wanted} sends (run it with --runtime {wanted}, or with no runtime option)",
        )
    try:
        recorded_factory = runtime_factory(wanted)
    except MissingExtraError as exc:
        raise ScenarioNotApplicable(
            chosen, f"the file is a recording made on {wanted}: {exc}"
        ) from None
    return recorded_factory(model_factories) if recorded_factory is not None else None
