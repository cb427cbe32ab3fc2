"""Flink and SoPhi styles in scenario files: build, run, check (F1–F4, K1–K6, Y1, Y4)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from handoff_sim.scenarios import ScenarioFileError, load_dict, load_path, run_scenario
from handoff_sim.scenarios._build import BuildContext, build_entry_agent, build_models
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.styles.sophi import RiskLevel, SubagentDispatcher
from handoff_sim.styles.sophi._risk import risk_of

from ._util import BUNDLED, write


def _delegate(kind: str, *, expected: list[str] | None = None, id: str = "d1") -> dict[str, Any]:
    arguments: dict[str, Any] = {"subagent_type": kind, "prompt": "go"}
    if expected is not None:
        arguments["expected_tools"] = expected
    return {"tool_calls": [{"id": id, "name": "delegate_to_subagent", "arguments": arguments}]}


SOPHI: dict[str, Any] = {
    "scenario": "sophi",
    "tools": {
        "read_file": {"returns": "contents"},
        "danger": {"returns": "destroyed", "risk": "destructive"},
    },
    "agent_types": {
        "operator": {
            "description": "Operates",
            "allowed_tools": ["read_file", "danger"],
            "model": {
                "script": [
                    {"tool_calls": [{"id": "s1", "name": "danger", "arguments": {}}]},
                    "finished",
                ]
            },
        }
    },
    "agents": {
        "main": {
            "tools": ["read_file", "danger"],
            "dispatcher": {"agent_types": ["operator"]},
            "model": {"script": [_delegate("operator"), "done"]},
        }
    },
    "run": ["go"],
}

FLINK: dict[str, Any] = {
    "scenario": "flink",
    "agents": {
        "main": {
            "subagents": [
                {
                    "agent": "reviewer",
                    "style": "flink",
                    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
                }
            ],
            "model": {
                "script": [
                    {
                        "tool_calls": [
                            {"id": "c1", "name": "subagent_reviewer", "arguments": {"path": "a"}}
                        ]
                    },
                    "done",
                ]
            },
        },
        "reviewer": {"model": {"script": ['{"ok": true}']}},
    },
    "run": ["go"],
}


def _with(base: dict[str, Any], **expect: Any) -> dict[str, Any]:
    data = copy.deepcopy(base)
    data["expect"] = expect
    return data


def _build(data: dict[str, Any]) -> Any:
    (scenario,) = load_dict(data)
    models = build_models(scenario.spec, (), lambda field: field)
    context = BuildContext(agent_types=scenario.agent_types)
    return build_entry_agent(scenario.spec, models, context)


def test_every_bundled_scenario_of_each_style_passes() -> None:
    for style in ("ai4j", "flink", "sophi"):
        scenarios = load_path(BUNDLED / style)
        assert scenarios, style
        for scenario in scenarios:
            result = run_scenario(scenario)
            assert result.passed, result.render_failure()


def test_flink_mount_builds_a_flink_subagent_with_its_schema() -> None:
    """F1, F3: style flink mounts FlinkSubAgent as subagent_<name>, schema verbatim."""
    main = _build(FLINK)
    (mount,) = main.subagents
    assert isinstance(mount, FlinkSubAgent)
    assert mount.tool_name == "subagent_reviewer"
    assert mount.spec.parameters == {"type": "object", "properties": {"path": {"type": "string"}}}


def test_flink_result_reaches_the_model_as_json() -> None:
    """F4: the sub-agent's JSON text is normalised and rendered compactly."""
    result = run_scenario(_with(FLINK, output="done", handoffs=[{"output": '{"ok": true}'}]))
    assert result.passed, result.render_failure()
    (tool_end,) = result.trace.of_type("tool_end")
    assert tool_end.to_dict()["output"] == '{"ok":true}'


def test_risk_tier_of_a_fake_tool_flows_to_tool_metadata() -> None:
    """K4: tools.<name>.risk is the tier the SoPhi style reads from Tool.metadata["risk"]."""
    main = _build(SOPHI)
    tiers = {t.name: risk_of(t) for t in main.tools}
    assert tiers == {"read_file": RiskLevel.SAFE, "danger": RiskLevel.DESTRUCTIVE}
    assert isinstance(main.subagents[0], SubagentDispatcher)


@pytest.mark.parametrize(
    ("confirm", "danger_runs"),
    [("allow_all", 1), ("deny_all", 0), ({"approve": ["danger"]}, 1), ({"approve": []}, 0)],
)
def test_confirm_policies_decide_risky_calls_inside_the_subagent(
    confirm: object, danger_runs: int
) -> None:
    """K4: allow_all, deny_all and {approve: [names]} decide the DESTRUCTIVE call."""
    data = copy.deepcopy(SOPHI)
    data["agents"]["main"]["dispatcher"]["confirm"] = confirm
    result = run_scenario(_with(data, output="done", tool_runs={"danger": danger_runs}))
    assert result.passed, result.render_failure()


def test_tool_runs_mismatch_is_reported_at_its_line() -> None:
    result = run_scenario(_with(SOPHI, tool_runs={"danger": 0}))
    (mismatch,) = result.mismatches
    assert (mismatch.kind, mismatch.field) == ("tool_runs", "expect.tool_runs.danger")
    assert mismatch.message == "tool 'danger' ran 1 time(s), expected 0"
    assert mismatch.line is not None


def test_sessions_expectation_matches_one_to_one_in_any_order() -> None:
    """K5: every saved session against one pattern; titles and parents compared."""
    good: list[dict[str, Any]] = [
        {"title": "subagent:operator", "parent_agent": "main", "agent": "operator"},
        {"agent": "main", "title": None, "parent_session_id": None},
    ]
    assert run_scenario(_with(SOPHI, sessions=good)).passed
    wrong_title = [{**good[0], "title": "subagent:other"}, good[1]]
    (mismatch,) = run_scenario(_with(SOPHI, sessions=wrong_title)).mismatches
    assert (mismatch.field, mismatch.message) == (
        "expect.sessions.0",
        "no session matches pattern 0",
    )
    (count,) = run_scenario(_with(SOPHI, sessions=good[:1])).mismatches
    assert count.message == "expected 1 session(s), got 2"


def test_a_failed_step_check_ends_the_run_naming_agent_and_step() -> None:
    """M1: the extra step checks fail the run with ScriptAssertionError."""
    data = copy.deepcopy(SOPHI)
    script = data["agent_types"]["operator"]["model"]["script"]
    script[0]["expect"] = {"tools": ["read_file"]}
    result = run_scenario(data)
    assert type(result.error).__name__ == "ScriptAssertionError"
    assert str(result.error) == (
        "agent 'operator', script step 1: expected tools ['read_file'], "
        "offered ['read_file', 'danger']"
    )
    assert not result.passed


@pytest.mark.parametrize(
    ("expect", "fragment"),
    [
        ({"tool_descriptions": {"subagent_reviewer": "x"}}, "description is"),
        ({"tool_parameters": {"subagent_reviewer": {}}}, "parameters are"),
        ({"message_roles": ["system", "user"]}, "message roles are ['user']"),
        ({"system_prompt": "You are x."}, "system prompt is None"),
        ({"input": {"match": "^nope$"}}, "user input is 'go'"),
        ({"model": "gpt-x"}, "model is"),
        ({"tool_descriptions": {"ghost": "x"}}, "tool 'ghost' not offered"),
    ],
)
def test_each_step_check_can_fail(expect: dict[str, Any], fragment: str) -> None:
    data = copy.deepcopy(FLINK)
    data["agents"]["main"]["model"]["script"][0]["expect"] = expect
    result = run_scenario(data)
    assert fragment in str(result.error)


def test_policy_on_a_dispatcher_agent_leaves_depth_to_max_delegation_depth() -> None:
    """K3: a policy without max_depth on a dispatcher agent does not cap nesting at 1."""
    data = copy.deepcopy(SOPHI)
    data["agents"]["main"]["policy"] = {"timeout": "5s"}
    assert _build(data).handoff_policy.max_depth == 0
    data["agents"]["main"]["policy"] = {"max_depth": 2}
    assert _build(data).handoff_policy.max_depth == 2


def test_dispatcher_mount_beside_an_ai4j_mount() -> None:
    """K1: `- dispatcher: {...}` mounts SubagentDispatcher on any agent."""
    data = copy.deepcopy(SOPHI)
    main = data["agents"]["main"]
    main["subagents"] = [{"dispatcher": main.pop("dispatcher")}, "helper"]
    data["agents"]["helper"] = {"model": {"script": ["helped"]}}
    built = _build(data)
    assert [type(m).__name__ for m in built.subagents] == ["SubagentDispatcher", "SubAgent"]
    assert [t.name for t in built.tool_specs] == [
        "read_file",
        "danger",
        "delegate_to_subagent",
        "subagent_helper",
    ]


def test_agent_types_dir_is_relative_to_the_scenario_file(tmp_path: Path) -> None:
    """K6: definition files next to the scenario; a bad one listed in skip_invalid is skipped."""
    agents = tmp_path / "cases" / "agents"
    agents.mkdir(parents=True)
    (agents / "alpha.md").write_text("---\nname: alpha\ndescription: A\n---\nYou are A.\n")
    (agents / "broken.md").write_text("no front matter\n")
    path = write(
        tmp_path,
        """
        scenario: dir
        agent_types_dir: {path: agents, skip_invalid: [broken.md]}
        agent_types:
          alpha: {model: {script: [hi]}}
        agents:
          main:
            dispatcher: {agent_types: [alpha]}
            model:
              script:
                - tool_calls:
                    - {name: delegate_to_subagent, arguments: {subagent_type: alpha, prompt: x}}
                - done
        run: [go]
        expect: {output: done, handoffs: [{subagent: alpha, output: hi}]}
        """,
        "cases/dir.yaml",
    )
    (scenario,) = load_path(path)
    assert scenario.agent_types["alpha"].system_prompt == "You are A."
    assert run_scenario(scenario).passed
    (agents / "broken.md").write_text("---\nname: alpha2\ndescription: B\n---\nfixed\n")
    with pytest.raises(ScenarioFileError, match=r"skip_invalid\.0: 'broken\.md' is listed"):
        load_path(path)


def test_json_schema_describes_the_style_keys() -> None:
    from handoff_sim.scenarios import scenario_json_schema

    defs = scenario_json_schema()["$defs"]
    assert {"agent_types", "agent_types_dir"} <= set(defs["Scenario"]["properties"])
    assert {"agent_types", "max_delegation_depth", "confirm", "parent_session_id"} == set(
        defs["DispatcherSpec"]["properties"]
    )
    assert {"style", "input_schema"} <= set(defs["SubAgentSpec"]["properties"])
    assert {"sessions", "tool_runs"} <= set(defs["ExpectSpec"]["properties"])
