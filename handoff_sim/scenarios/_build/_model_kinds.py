"""Check that a plugin builds every model ``kind`` a scenario file names, before it runs.

``handoff-sim validate``/``run`` and pytest collection ask the same model factories the
run will ask, so a kind nobody builds is a ``path:line:col`` error in all three instead
of a failure in the middle of a run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from handoff_sim._safe import describe_error
from handoff_sim.scenarios._build._models import ModelFactory, built_in_kind
from handoff_sim.scenarios._errors import Problem
from handoff_sim.scenarios._load import LoadedScenario
from handoff_sim.scenarios._schema import CustomModelSpec, ScenarioSpec

__all__ = ["custom_models", "model_kind_problems"]

FactoriesFor = Callable[[LoadedScenario], "Sequence[ModelFactory] | None"]
"""The model factories a scenario's run will ask, or ``None`` when a plugin's runtime runs it."""


def custom_models(spec: ScenarioSpec) -> Iterator[tuple[str, str, CustomModelSpec]]:
    """``(field path, agent name, model)`` for every model given by ``kind``."""
    for name, agent in spec.agents.items():
        if isinstance(agent.model, CustomModelSpec):
            yield f"agents.{name}.model.kind", name, agent.model
    for name, declared in spec.agent_types.items():
        if isinstance(declared.model, CustomModelSpec):
            yield f"agent_types.{name}.model.kind", name, declared.model


def model_kind_problems(
    scenarios: Iterable[LoadedScenario], factories_for: FactoriesFor
) -> list[Problem]:
    """One problem per model ``kind`` no factory builds (or whose factory fails), once per field.

    The factories really build each client (then it is dropped): that is the only way to
    know whether a plugin takes a kind. Scenarios without a ``kind`` ask nobody.
    """
    problems: dict[str, Problem] = {}
    for scenario in scenarios:
        models = [m for m in custom_models(scenario.spec) if m[0] not in problems]
        factories = factories_for(scenario) if models else None
        if factories is None:
            continue
        for field, name, model in models:
            message = _unbuilt(name, model, factories)
            if message is not None:
                at = scenario.document_path(field)
                line, column = scenario.source.position(at)
                where = scenario.field_name(field)
                problems[field] = Problem(str(scenario.path), line, column, where, message)
    return list(problems.values())


def _unbuilt(name: str, model: CustomModelSpec, factories: Sequence[ModelFactory]) -> str | None:
    """Why no factory builds ``model``, or ``None`` when one does (or it is built in)."""
    try:
        if built_in_kind(model.model_dump(), name) is not None:
            return None
    except Exception as exc:
        return f"model kind {model.kind!r}: {_options_problem(exc)}"
    for factory in factories:
        try:
            client = factory(name, model.model_dump())
        except Exception as exc:
            return f"the model factory for kind {model.kind!r} failed: {describe_error(exc)}"
        if client is not None:
            return None
    return (
        f"unknown model kind {model.kind!r}: no plugin builds it (the built-in models "
        "are written 'script:', 'adversarial:', 'kind: schema' or 'kind: stub'; a plugin "
        "adds a kind "
        "with the pytest_handoff_make_model hook, see docs/plugin.md)"
    )


def _options_problem(exc: Exception) -> str:
    """A wrong option of a built-in kind, one line per field: ``seed: Input should be ...``."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return describe_error(exc)
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'model'}: {e['msg']}" for e in errors()
    )
