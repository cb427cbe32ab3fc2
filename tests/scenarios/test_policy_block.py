"""The policy block of a scenario file agrees with HandoffPolicy: fields, defaults, bounds, values.

HandoffPolicy is the one source of truth; the loader, the JSON Schema and the built
agents must say what it says.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from handoff_sim import FailureAction, HandoffPolicy
from handoff_sim import strategies as hs
from handoff_sim._limits import MAX_RETRIES
from handoff_sim.errors import PolicyError
from handoff_sim.messages import ToolCall
from handoff_sim.scenarios import ScenarioFileError, load_dict, scenario_json_schema
from handoff_sim.scenarios._build import BuildContext, build_entry_agent, build_models

from ._util import delegation

_POLICY_TOOLS = ["delegate_review", "other_tool"]


def _with_policy(block: dict[str, Any]) -> dict[str, Any]:
    data = delegation()
    data["agents"]["manager"]["policy"] = block
    return data


def _built_policy(block: dict[str, Any]) -> HandoffPolicy:
    (scenario,) = load_dict(_with_policy(block))
    models = build_models(scenario.spec, (), lambda field: field)
    return build_entry_agent(scenario.spec, models, BuildContext()).handoff_policy


def _block_schema() -> dict[str, Any]:
    schema = scenario_json_schema()
    return schema["$defs"]["PolicySpec"]


def test_the_policy_block_has_exactly_the_fields_of_handoff_policy_in_order() -> None:
    assert list(_block_schema()["properties"]) == list(HandoffPolicy.model_fields)


def test_the_json_schema_defaults_are_the_policy_defaults_as_a_file_writes_them() -> None:
    defaults = {k: v.get("default") for k, v in _block_schema()["properties"].items()}
    policy = HandoffPolicy()
    assert defaults == {
        "enabled": policy.enabled,
        "max_depth": policy.max_depth,
        "max_retries": policy.max_retries,
        "timeout": None,
        "allowed_tools": None,
        "denied_tools": None,
        "on_denied": FailureAction.FAIL.value,
        "on_error": FailureAction.FAIL.value,
        "input_filter": None,
        "retry_on": None,
    }


def test_an_empty_policy_block_builds_the_default_policy() -> None:
    built = _built_policy({})
    assert built.model_dump() == HandoffPolicy().model_dump()


@pytest.mark.parametrize(
    ("field", "value"),
    [("max_depth", -1), ("max_retries", -1), ("max_retries", MAX_RETRIES + 1), ("timeout", 0)],
)
def test_a_value_out_of_the_policy_bounds_is_refused_by_both(field: str, value: object) -> None:
    with pytest.raises(PolicyError):
        HandoffPolicy(**{field: value})
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(_with_policy({field: value}))
    assert [p.field for p in caught.value.problems] == [f"agents.manager.policy.{field}"]


@pytest.mark.parametrize(("field", "value"), [("max_depth", 0), ("max_retries", MAX_RETRIES)])
def test_a_value_at_the_policy_bounds_is_accepted_by_both(field: str, value: int) -> None:
    assert getattr(_built_policy({field: value}), field) == value
    assert getattr(HandoffPolicy(**{field: value}), field) == value


def test_every_failure_action_is_a_valid_file_value_and_nothing_else() -> None:
    expected = [action.value for action in FailureAction]
    for field in ("on_denied", "on_error"):
        assert _block_schema()["properties"][field]["enum"] == expected


def _same_filter(built: HandoffPolicy, direct: HandoffPolicy) -> bool:
    if built.input_filter is None or direct.input_filter is None:
        return built.input_filter is direct.input_filter
    call = ToolCall("c1", "delegate_review", '{"task": "x"}')
    outcomes = []
    for policy in (built, direct):
        assert policy.input_filter is not None
        try:
            outcomes.append(policy.input_filter(call))
        except ValueError as exc:
            outcomes.append(str(exc))
    return outcomes[0] == outcomes[1]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(block=hs.policy_dicts(tools=_POLICY_TOOLS))
def test_a_loaded_policy_block_builds_the_policy_from_block_reads(block: dict[str, Any]) -> None:
    built = _built_policy(block)
    direct = HandoffPolicy.from_block(block)
    fields = set(HandoffPolicy.model_fields) - {"input_filter"}
    assert built.model_dump(include=fields) == direct.model_dump(include=fields)
    assert _same_filter(built, direct)
