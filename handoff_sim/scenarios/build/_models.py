"""Build the fake models a scenario declares: scripts, adversarial models, plugin kinds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from handoff_sim._models import ModelClient
from handoff_sim.scenarios._errors import ScenarioError
from handoff_sim.scenarios.build._steps import script_step
from handoff_sim.scenarios.schema import (
    AdversarialSpec,
    CustomModelSpec,
    ScenarioSpec,
    ScriptModelSpec,
)

__all__ = ["Locate", "ModelFactory", "build_models", "build_type_models", "built_in_kind"]

ModelFactory = Callable[[str, dict[str, Any]], "ModelClient | None"]
"""Asked for a model kind the default builder does not know; ``None`` means not mine."""

Locate = Callable[[str], str]
ModelSpecType = ScriptModelSpec | CustomModelSpec


def build_models(
    spec: ScenarioSpec, factories: Sequence[ModelFactory], locate: Locate
) -> dict[str, ModelClient]:
    """One model client per agent; ``locate(field)`` gives ``path:line`` for messages."""
    return {
        name: _built(name, agent.model, f"agents.{name}.model", factories, locate)
        for name, agent in spec.agents.items()
    }


def build_type_models(
    spec: ScenarioSpec, factories: Sequence[ModelFactory], locate: Locate
) -> dict[str, ModelClient]:
    """One model client per agent type that declares one (shared by all its delegations)."""
    return {
        name: _built(name, declared.model, f"agent_types.{name}.model", factories, locate)
        for name, declared in spec.agent_types.items()
        if declared.model is not None
    }


def _built(
    name: str, model: ModelSpecType, field: str, factories: Sequence[ModelFactory], locate: Locate
) -> ModelClient:
    where = locate(field)
    try:
        return _model(name, model, factories, where, field)
    except ScenarioError:
        raise
    except Exception as exc:  # the model's own constructor refused the spec
        raise ScenarioError(f"{where}: {field}: {exc}") from exc


def _model(
    name: str,
    model: ModelSpecType,
    factories: Sequence[ModelFactory],
    where: str,
    field: str,
) -> ModelClient:
    if isinstance(model, ScriptModelSpec) and model.script is not None:
        from handoff_sim.testing import ScriptedModel

        steps = [script_step(s, name, i) for i, s in enumerate(model.script, 1)]
        return ScriptedModel(steps, name=name)
    if isinstance(model, ScriptModelSpec) and model.adversarial is not None:
        return _adversarial(model.adversarial, where)
    assert isinstance(model, CustomModelSpec)
    raw = model.model_dump()
    schema_model = built_in_kind(raw)
    if schema_model is not None:
        return schema_model
    for factory in factories:
        client = factory(name, dict(raw))
        if client is not None:
            return client
    raise ScenarioError(
        f"{where}: {field}: no model factory for kind '{model.kind}' "
        "(built in: script, adversarial, kind: schema; plugins add kinds through a model factory)"
    )


def built_in_kind(raw: dict[str, Any]) -> ModelClient | None:
    """The built-in model ``kind: schema`` (a SchemaModel), or None for a plugin's kind.

    Its options are checked here: a wrong one raises pydantic's ``ValidationError``.
    """
    from handoff_sim.testing import SchemaModelSpec

    if raw.get("kind") != SchemaModelSpec.KIND:
        return None
    return SchemaModelSpec.model_validate(raw).build()


def _adversarial(spec: AdversarialSpec, where: str) -> ModelClient:
    import handoff_sim.testing as testing

    factory = getattr(testing, "AdversarialModel", None)
    if factory is None:
        raise ScenarioError(
            f"{where}: adversarial models are not available in this installation "
            "(handoff_sim.testing.AdversarialModel is missing)"
        )
    kwargs = spec.model_dump(exclude_none=True)
    client: ModelClient = factory(**kwargs)
    return client
