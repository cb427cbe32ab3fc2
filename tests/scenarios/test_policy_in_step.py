"""The scenario file's policy block, written out by hand, stays in step with HandoffPolicy.

A field added to, dropped from or given another default or bound on one side only fails
here, with a message saying what to add or change, and where.
"""

from __future__ import annotations

import types
import typing
from enum import StrEnum
from typing import Any

import pytest
from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

from handoff_sim import HandoffPolicy
from handoff_sim._durations import parse_duration
from handoff_sim.scenarios import load_dict
from handoff_sim.scenarios._build import BuildContext, build_entry_agent, build_models
from handoff_sim.scenarios._schema import PolicySpec

from ._util import delegation

_POLICY_AT = "HandoffPolicy in handoff_sim/subagents/_policy.py"
_FILE_AT = "PolicySpec in handoff_sim/scenarios/_schema/_policy.py"
_BOUNDS = (Ge, Gt, Le, Lt)


def _as_written(value: Any) -> Any:
    """A policy default as a scenario file writes it."""
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, frozenset):
        return sorted(value)
    return value


def _optional(info: FieldInfo) -> bool:
    annotation = info.annotation
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return False
    return type(None) in typing.get_args(annotation)


def _bounds(info: FieldInfo) -> set[Any]:
    return {m for m in info.metadata if isinstance(m, _BOUNDS)}


def _field_problems(name: str, policy: FieldInfo, written: FieldInfo) -> list[str]:
    problems = []
    expected = _as_written(policy.get_default(call_default_factory=True))
    if written.get_default(call_default_factory=True) != expected:
        problems.append(f"set the default of {name} to {expected!r} in {_FILE_AT}")
    if _optional(policy) != _optional(written):
        problems.append(f"make {name} optional (None) in both or neither")
    if _bounds(written) and _bounds(policy) != _bounds(written):
        problems.append(f"give {name} the bounds {sorted(map(repr, _bounds(policy)))}")
    if not written.description:
        problems.append(f"describe {name} in {_FILE_AT} (the JSON Schema shows it)")
    return problems


def out_of_step(policy: type[BaseModel], written: type[BaseModel]) -> list[str]:
    """What to change so that ``written`` is ``policy`` as a file writes it, or []."""
    problems = [
        f"HandoffPolicy.{name} has no file form: add {name} to {_FILE_AT}"
        for name in policy.model_fields
        if name not in written.model_fields
    ]
    problems += [
        f"PolicySpec.{name} is no policy field: add {name} to {_POLICY_AT}, "
        f"or drop it from {_FILE_AT}"
        for name in written.model_fields
        if name not in policy.model_fields
    ]
    shared = [name for name in policy.model_fields if name in written.model_fields]
    if [n for n in written.model_fields if n in shared] != shared:
        problems.append(f"write the fields of {_FILE_AT} in HandoffPolicy's order: {shared}")
    for name in shared:
        problems += _field_problems(name, policy.model_fields[name], written.model_fields[name])
    return problems


def test_the_policy_file_form_has_every_policy_field_with_its_default_and_bounds() -> None:
    assert out_of_step(HandoffPolicy, PolicySpec) == []


class _GrownPolicy(HandoffPolicy):
    """A policy given a field the file form does not have (and another default)."""

    max_retries: int = Field(default=2, ge=0, le=100)
    new_knob: int = 3


class _GrownFile(PolicySpec):
    """A file form given a field the policy does not have (and a bound of its own)."""

    max_depth: int = Field(default=1, ge=1, description="deepest handoff")
    extra_knob: bool = Field(default=False, description="nothing")


def test_a_policy_field_without_a_file_form_fails_naming_what_to_add_where() -> None:
    problems = out_of_step(_GrownPolicy, PolicySpec)
    assert problems == [
        f"HandoffPolicy.new_knob has no file form: add new_knob to {_FILE_AT}",
        f"set the default of max_retries to 2 in {_FILE_AT}",
    ]


def test_a_file_field_without_a_policy_field_fails_naming_what_to_add_where() -> None:
    problems = out_of_step(HandoffPolicy, _GrownFile)
    assert problems == [
        f"PolicySpec.extra_knob is no policy field: add extra_knob to {_POLICY_AT}, "
        f"or drop it from {_FILE_AT}",
        "give max_depth the bounds ['Ge(ge=0)']",
    ]


def test_a_file_timeout_is_read_from_its_text_once_on_its_way_to_the_policy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import handoff_sim._durations as durations

    texts: list[str] = []
    read = durations._from_text

    def counted(text: str) -> Any:
        texts.append(text)
        return read(text)

    monkeypatch.setattr(durations, "_from_text", counted)
    data = delegation()
    data["agents"]["manager"]["policy"] = {"timeout": "1.5m"}
    (scenario,) = load_dict(data)
    models = build_models(scenario.spec, (), lambda field: field)
    policy = build_entry_agent(scenario.spec, models, BuildContext()).handoff_policy
    assert policy.timeout == 90.0
    assert texts.count("1.5m") == 1


@pytest.mark.parametrize("seconds", [0.25, 90, 31_622_400])
def test_seconds_handed_to_the_policy_are_kept_exactly(seconds: float) -> None:
    assert HandoffPolicy(timeout=seconds).timeout == parse_duration(seconds) == seconds
