"""Trace patterns on the SoPhi confirmation events: in the JSON Schema, checked at load."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from handoff_sim.scenarios import ScenarioFileError, load_text, run_scenario, scenario_json_schema

SCENARIO = """\
scenario: confirm
tools:
  danger: {{returns: x, risk: destructive}}
agents:
  main:
    tools: [danger]
    dispatcher: {{agent_types: [], confirm: deny_all}}
    model:
      script:
        - tool_calls: [{{id: c1, name: danger, arguments: {{}}}}]
        - done
run: [go]
expect:
  trace:
    - {pattern}
"""


def test_the_json_schema_knows_both_event_types_and_their_values() -> None:
    text = json.dumps(scenario_json_schema())
    for value in ("confirmation_request", "confirmation_decision", "refused", "destructive"):
        assert f'"{value}"' in text
    good = yaml.safe_load(
        SCENARIO.format(
            pattern="{type: confirmation_decision, risk: destructive, decision: refused}"
        )
    )
    jsonschema.validate(good, scenario_json_schema())


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (
            "{type: confirmation_decision, decision: refusd}",
            "15:37: expect.trace.0.decision: unknown decision 'refusd' for event type "
            "'confirmation_decision' (did you mean 'refused'?)",
        ),
        (
            "{type: confirmation_request, risks: [destrutive]}",
            "15:44: expect.trace.0.risks.0: unknown risks 'destrutive'",
        ),
        (
            "{type: confirmation_decision, approved: false}",
            "15:37: expect.trace.0.approved: unknown field",
        ),
    ],
)
def test_a_misused_confirmation_pattern_is_refused_at_its_line(pattern: str, message: str) -> None:
    with pytest.raises(ScenarioFileError) as caught:
        load_text(SCENARIO.format(pattern=pattern), "s.yaml")
    assert f"s.yaml:{message}" in str(caught.value), str(caught.value)


def test_a_confirmation_pattern_matches_a_run() -> None:
    pattern = "{type: confirmation_decision, call_id: c1, risk: destructive, decision: refused}"
    (loaded,) = load_text(SCENARIO.format(pattern=pattern), "s.yaml")
    assert run_scenario(loaded).passed
