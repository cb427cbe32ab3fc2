"""A recording is a scenario file: its models replay, its policies may change, its schema exact."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from handoff_sim import ModelRequest
from handoff_sim.cli import main
from handoff_sim.errors import ReplayExhaustedError, ReplayMismatchError, UnusedRecordingError
from handoff_sim.events import HandoffAttemptEndEvent
from handoff_sim.messages import Message, Usage
from handoff_sim.scenarios import (
    LoadedScenario,
    ScenarioFileError,
    load_dict,
    load_file,
    run_scenario,
    scenario_json_schema,
)
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel

FILES = Path(__file__).parent / "files"
RETRY = FILES / "slow_subagent_retry.yaml"
BUNDLED = Path(__file__).resolve().parents[2] / "scenarios" / "recordings"


def _variants(path: Path) -> dict[str | None, LoadedScenario]:
    return {s.variant: s for s in load_file(path)}


def _data(path: Path = RETRY) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _as_recorded(data: dict[str, Any]) -> dict[str, Any]:
    """The recording without its matrix: the scenario as it was recorded."""
    plain = copy.deepcopy(data)
    plain.pop("matrix", None)
    return plain


def test_r1_what_if_a_10s_timeout_and_one_retry_time_out_twice_in_20s_and_fall_back() -> None:
    result = run_scenario(_variants(RETRY)["timeout-10s-retry-fallback"])
    assert result.passed, result.render_failure()
    attempts = result.trace.of_type(HandoffAttemptEndEvent)
    assert [(a.attempt, a.outcome, a.t) for a in attempts] == [
        (1, "timeout", 11.0),
        (2, "timeout", 21.0),
    ]
    (handoff,) = result.trace.handoffs()
    assert (handoff.status, handoff.attempts, handoff.duration_ms) == ("fallback", 2, 20000.0)
    assert result.elapsed_ms == 21500.0


def test_r1_what_if_a_15s_timeout_passes_the_recorded_expectations() -> None:
    result = run_scenario(_variants(RETRY)["timeout-15s"])
    assert result.passed, result.render_failure()
    (handoff,) = result.trace.handoffs()
    assert (handoff.status, handoff.attempts, handoff.output) == (
        "completed",
        1,
        "it shipped on monday",
    )
    assert result.elapsed_ms == 13500.0


def test_the_recording_as_recorded_passes_at_its_recorded_latencies() -> None:
    result = run_scenario(load_dict(_as_recorded(_data()))[0])
    assert result.passed, result.render_failure()
    assert result.elapsed_ms == 13500.0


def test_the_bundled_recording_passes_under_both_policies() -> None:
    results = [run_scenario(s) for s in load_file(BUNDLED / "slow_subagent_what_if.yaml")]
    assert [r.scenario.variant for r in results] == ["timeout-15s", "timeout-10s-retry-fallback"]
    assert all(r.passed for r in results), [r.render_failure() for r in results if not r.passed]


def test_handoff_sim_validate_accepts_a_recording(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(RETRY), str(BUNDLED)]) == 0
    assert "2 scenario(s)" in capsys.readouterr().out


def test_a_changed_prompt_in_the_code_fails_the_replay_naming_agent_and_step() -> None:
    data = _as_recorded(_data())
    data["run"] = ["when did order 43 ship?"]
    result = run_scenario(load_dict(data)[0])
    assert not result.passed
    assert isinstance(result.error, ReplayMismatchError)
    assert (result.error.agent, result.error.step, result.error.nearest) == ("triage", 1, 1)
    assert result.error.differences == [
        "the last message changed: recorded 'when did order 42 ship?' now 'when did order 43 ship?'"
    ]


def test_a_tool_added_to_the_code_fails_the_replay_naming_it() -> None:
    data = _as_recorded(_data())
    data["tools"] = {"lookup": {"returns": "x"}}
    data["agents"]["triage"]["tools"] = ["lookup"]
    result = run_scenario(load_dict(data)[0])
    assert isinstance(result.error, ReplayMismatchError)
    assert result.error.differences == ["tool added: lookup"]


def test_match_tools_in_the_file_replays_a_changed_prompt() -> None:
    data = _as_recorded(_data())
    data["recorded"]["match"] = "tools"
    data["run"] = ["when did order 43 ship?"]
    data["expect"].pop("handoffs")
    result = run_scenario(load_dict(data)[0])
    assert result.passed, result.render_failure()


def test_recorded_steps_left_unused_fail_the_scenario_naming_agent_and_step() -> None:
    data = _as_recorded(_data())
    data["agents"]["research"]["model"]["script"].append({"text": "never asked"})
    result = run_scenario(load_dict(data)[0])
    assert not result.passed
    (found,) = [m for m in result.mismatches if m.kind == "recording"]
    assert isinstance(found.actual, UnusedRecordingError)
    assert (found.actual.agent, found.actual.unused_steps) == ("research", [2])
    assert "agent 'research' has 1 unused step(s) of 2: step(s) 2" in found.format()


def test_a_what_if_that_no_longer_calls_an_agent_leaves_its_lane_unused_without_failing() -> None:
    data = _as_recorded(_data())
    data["matrix"] = [
        {
            "id": "research-denied",
            "policies": {"triage": {"denied_tools": ["research"], "on_denied": "report_to_model"}},
            "unset": ["expect.handoffs", "expect.elapsed"],
        }
    ]
    (scenario,) = load_dict(data)
    result = run_scenario(scenario)
    assert result.passed, result.render_failure()
    assert [h.status for h in result.trace.handoffs()] == ["denied"]


def test_steps_removed_from_a_lane_exhaust_it() -> None:
    data = _as_recorded(_data())
    data["agents"]["triage"]["model"]["script"].pop()
    result = run_scenario(load_dict(data)[0])
    assert isinstance(result.error, ReplayExhaustedError)
    assert (result.error.agent, result.error.step) == ("triage", 2)


def test_a_scenario_without_recorded_keeps_its_scripted_models() -> None:
    data = _as_recorded(_data())
    data.pop("recorded")
    data["run"] = ["when did order 43 ship?"]  # no fingerprint is checked
    data["expect"].pop("handoffs")
    result = run_scenario(load_dict(data)[0])
    assert result.passed, result.render_failure()


def test_script_steps_carry_usage_and_ignore_request_and_first_chunk() -> None:
    model = ScriptedModel(
        [
            {
                "text": "hi",
                "usage": {"input_tokens": 3, "output_tokens": 1},
                "request": {"role": "user", "sha256": "0" * 16},
                "first_chunk": "20ms",
            }
        ]
    )
    (step,) = model.steps
    assert step.response is not None
    assert step.response.usage == Usage(input_tokens=3, output_tokens=1)
    assert step.first_chunk == 0.02


def test_usage_does_not_reach_the_events() -> None:
    with_usage = _as_recorded(_data())
    without = copy.deepcopy(with_usage)
    for agent in without["agents"].values():
        for step in agent["model"]["script"]:
            step.pop("usage", None)
    traces = [run_scenario(load_dict(d)[0]).trace.to_jsonl() for d in (with_usage, without)]
    assert traces[0] == traces[1]


# -- the JSON Schema accepts exactly what the loader accepts --------------------------------


def _step(data: dict[str, Any]) -> dict[str, Any]:
    step = data["agents"]["research"]["model"]["script"][0]
    assert isinstance(step, dict)
    return step


def _set_format(value: object) -> Any:
    return lambda d: d["recorded"].update(format=value)


def _edit_step(**keys: object) -> Any:
    return lambda d: _step(d).update(keys)


def _without_answer(**keys: object) -> Any:
    def edit(d: dict[str, Any]) -> None:
        _step(d).pop("text")
        _step(d).update(keys)

    return edit


_ANSWER = {"arguments": {"order": 42}, "returns": "shipped", "latency": "12ms"}
_CASES: dict[str, Any] = {
    "format 1": _set_format(1),
    "format 2": _set_format(2),
    "format '1'": _set_format("1"),
    "format true": _set_format(True),
    "format 1.0": _set_format(1.0),
    "match order": lambda d: d["recorded"].update(match="order"),
    "match exact": lambda d: d["recorded"].update(match="exact"),
    "date unquoted form": lambda d: d["recorded"].update(date="2026-12-01 23:40"),
    "unknown recorded key": lambda d: d["recorded"].update(recorder="me"),
    "sha256 upper case": _edit_step(request={"role": "user", "sha256": "ABCDEF0123456789"}),
    "sha256 too short": _edit_step(request={"role": "user", "sha256": "abc"}),
    "system hash": _edit_step(request={"role": "user", "sha256": "0" * 16, "system": "1" * 16}),
    "role robot": _edit_step(request={"role": "robot", "sha256": "0" * 16}),
    "request without role": _edit_step(request={"sha256": "0" * 16}),
    "usage negative": _edit_step(usage={"input_tokens": -1}),
    "usage huge": _edit_step(usage={"output_tokens": 2**60}),
    "usage string": _edit_step(usage={"output_tokens": "5"}),
    "first chunk": _edit_step(first_chunk="210ms"),
    "first chunk negative": _edit_step(first_chunk=-1),
    "latency negative": _edit_step(latency="-1s"),
    "latency over a year": _edit_step(latency="8785h"),
    "cancelled alone": _without_answer(cancelled=True),
    "cancelled with text": _edit_step(cancelled=True),
    "cancelled false alone": _without_answer(cancelled=False),
    "tool answers": lambda d: d.update(tools={"lookup": {"answers": [_ANSWER]}}),
    "tool answers raw": lambda d: d.update(
        tools={"lookup": {"answers": [{"arguments": '{"order": 42}', "raises": "gone"}]}}
    ),
    "tool answers and returns": lambda d: d.update(
        tools={"lookup": {"answers": [_ANSWER], "returns": "x"}}
    ),
    "tool answer returns and raises": lambda d: d.update(
        tools={"lookup": {"answers": [{"returns": "x", "raises": "y"}]}}
    ),
    "tool answer unknown key": lambda d: d.update(tools={"lookup": {"answers": [{"result": "x"}]}}),
}


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(scenario_json_schema())


def _loads(data: dict[str, Any]) -> bool:
    try:
        load_dict(data)
    except ScenarioFileError:
        return False
    return True


@pytest.mark.parametrize("case", sorted(_CASES))
def test_y1_the_schema_accepts_a_recording_exactly_when_the_loader_does(
    case: str, validator: jsonschema.Draft202012Validator
) -> None:
    data = _as_recorded(_data())
    _CASES[case](data)
    assert validator.is_valid(data) == _loads(data)


def test_y1_the_cases_include_refusals_and_acceptances() -> None:
    verdicts = set()
    for edit in _CASES.values():
        data = _as_recorded(_data())
        edit(data)
        verdicts.add(_loads(data))
    assert verdicts == {True, False}


def test_another_format_number_is_refused_at_its_line_naming_format_1(tmp_path: Path) -> None:
    text = RETRY.read_text(encoding="utf-8").replace("format: 1", "format: 7")
    path = tmp_path / "future.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "format: 7" in t)
    assert f"{path}:{line}:3: recorded.format: recording format 7 is not supported" in str(
        caught.value
    )
    assert "reads format 1" in str(caught.value)


def test_a_scripted_step_recorded_cancelled_never_answers() -> None:
    model = ScriptedModel([{"cancelled": True}])
    request = ModelRequest(agent="a", model="m", messages=[Message(role="user", content="hi")])

    async def call() -> float:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(model.complete(request), timeout=3600)
        return asyncio.get_running_loop().time()

    with Simulation() as sim:
        assert sim.run_coroutine(call()) == 3600.0
