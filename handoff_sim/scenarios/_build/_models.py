"""Build the fake models a scenario declares: scripts, adversarial models, plugin kinds."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from handoff_sim._models import ModelClient
from handoff_sim.scenarios._build._steps import script_step
from handoff_sim.scenarios._errors import ScenarioError
from handoff_sim.scenarios._schema import (
    AdversarialSpec,
    CustomModelSpec,
    ScenarioSpec,
    ScriptModelSpec,
)

if TYPE_CHECKING:
    from handoff_sim.testing._replay_lane import ReplayLedger

__all__ = [
    "Locate",
    "ModelFactory",
    "build_models",
    "build_type_models",
    "built_in_kind",
    "unused_recorded_steps",
]

ModelFactory = Callable[[str, dict[str, Any]], "ModelClient | None"]
"""Asked for a model kind the default builder does not know; ``None`` means not mine."""

Locate = Callable[[str], str]
ModelSpecType = ScriptModelSpec | CustomModelSpec


class _Scripts:
    """How the scripts of one scenario run: fake models, or, in a recording, replays
    sharing one ledger (a cut-off run gives back what every lane served it)."""

    def __init__(self, spec: ScenarioSpec) -> None:
        self.recorded = spec.recorded
        self.ledger: ReplayLedger | None = None
        if self.recorded is not None:
            from handoff_sim.testing._replay_lane import ReplayLedger

            self.ledger = ReplayLedger()

    def model(self, name: str, steps: list[str | dict[str, Any]], places: list[str]) -> ModelClient:
        """A ScriptedModel of ``steps``, or in a recording the ReplayModel of its lane
        (``places``: where each step is written, for its messages)."""
        from handoff_sim.testing import ScriptedModel
        from handoff_sim.testing._replay import ReplayModel

        if self.recorded is None:
            return ScriptedModel(steps, name=name)
        return ReplayModel(
            steps,
            agent=name,
            match=self.recorded.match,
            ledger=self.ledger,
            model_name=_recorded_model(steps) or self.recorded.models.get(name),
            places=places,
        )


def _recorded_model(steps: list[str | dict[str, Any]]) -> str | None:
    """The model name the first recorded request named, if a step records one."""
    for step in steps:
        request = step.get("request") if isinstance(step, dict) else None
        if isinstance(request, dict) and isinstance(request.get("model"), str):
            return str(request["model"])
    return None


def build_models(
    spec: ScenarioSpec, factories: Sequence[ModelFactory], locate: Locate
) -> dict[str, ModelClient]:
    """One model client per agent; ``locate(field)`` gives ``path:line`` for messages.

    In a recording (``recorded:``) each scripted agent's model replays its script.
    """
    scripts = _Scripts(spec)
    return {
        name: _built(name, agent.model, f"agents.{name}.model", factories, locate, scripts)
        for name, agent in spec.agents.items()
    }


def build_type_models(
    spec: ScenarioSpec, factories: Sequence[ModelFactory], locate: Locate
) -> dict[str, ModelClient]:
    """One model client per agent type that declares one (shared by all its delegations)."""
    scripts = _Scripts(spec)
    return {
        name: _built(name, declared.model, f"agent_types.{name}.model", factories, locate, scripts)
        for name, declared in spec.agent_types.items()
        if declared.model is not None
    }


def unused_recorded_steps(
    models: Iterable[object], error: BaseException | None, *, reached_only: bool = False
) -> list[BaseException]:
    """For each replayed lane with recorded steps no request used, its UnusedRecordingError.

    Checked only after a run that ended without error (an error stops a run early);
    ``reached_only`` leaves out the lanes no request reached at all (a what-if policy
    that no longer calls an agent).
    """
    from handoff_sim.errors import UnusedRecordingError
    from handoff_sim.testing._replay import ReplayModel

    if error is not None:
        return []
    found: list[BaseException] = []
    for model in {id(m): m for m in models}.values():
        if isinstance(model, ReplayModel) and (model.requests or not reached_only):
            try:
                model.assert_complete()
            except UnusedRecordingError as exc:
                found.append(exc)
    return found


def _built(
    name: str,
    model: ModelSpecType,
    field: str,
    factories: Sequence[ModelFactory],
    locate: Locate,
    scripts: _Scripts,
) -> ModelClient:
    where = locate(field)
    try:
        return _model(name, model, factories, (where, locate), field, scripts)
    except ScenarioError:
        raise
    except Exception as exc:  # the model's own constructor refused the spec
        raise ScenarioError(f"{where}: {field}: {exc}") from exc


def _model(
    name: str,
    model: ModelSpecType,
    factories: Sequence[ModelFactory],
    located: tuple[str, Locate],
    field: str,
    scripts: _Scripts,
) -> ModelClient:
    where, locate = located
    if isinstance(model, ScriptModelSpec) and model.script is not None:
        steps = [script_step(s, name, i) for i, s in enumerate(model.script, 1)]
        places = [locate(f"{field}.script.{i}") for i in range(len(steps))]
        return scripts.model(name, steps, places)
    if isinstance(model, ScriptModelSpec) and model.adversarial is not None:
        return _adversarial(model.adversarial, where)
    assert isinstance(model, CustomModelSpec)
    raw = model.model_dump()
    schema_model = built_in_kind(raw, name)
    if schema_model is not None:
        return schema_model
    for factory in factories:
        client = factory(name, dict(raw))
        if client is not None:
            return client
    raise ScenarioError(
        f"{where}: {field}: no model factory for kind '{model.kind}' "
        "(built in: script, adversarial, kind: schema, kind: stub; plugins add kinds through a "
        "model factory)"
    )


def built_in_kind(raw: dict[str, Any], name: str = "stub") -> ModelClient | None:
    """The built-in models ``kind: schema`` (a SchemaModel) and ``kind: stub`` (a StubModel
    named ``name``), or None for a plugin's kind.

    Their options are checked here: a wrong one raises pydantic's ``ValidationError`` (a
    wrong outcome of a stub, a ``ConfigurationError``).
    """
    from handoff_sim.testing._schema_model import SchemaModelSpec
    from handoff_sim.testing._stub import StubModelSpec

    if raw.get("kind") == StubModelSpec.KIND:
        return StubModelSpec.model_validate(raw).build(name)
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
