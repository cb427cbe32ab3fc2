"""Issue 19, item 9: a failed script-step expectation fails the scenario, whatever
``expect.error`` says.

A step's ``expect`` that does not hold raises ``ScriptAssertionError``, which ends the
run; an ``expect.error`` that takes any error (``{type: Exception}``, ``{}``, even
``{type: ScriptAssertionError}``) used to absorb it, and the scenario passed. Now it is
a finding of its own (kind ``step_expect``), in ``run_scenario``, ``handoff-sim run``
and pytest, also when the code calling the model caught the error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from handoff_sim.cli import main
from handoff_sim.errors import ScriptAssertionError
from handoff_sim.messages import ModelRequest, ModelResponse
from handoff_sim.scenarios import run_scenario
from handoff_sim.testing import ScriptedModel

FILES = Path(__file__).parent / "files"
FILE = FILES / "step_expect_failed_error_expected.yaml"

ANY_ERROR = [
    {"type": "Exception"},
    {},
    {"type": "ScriptAssertionError"},
    {"type": "AssertionError", "match": "script step"},
    {"match": ".*"},
]


def _scenario(step_expect: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "scenario": "step-expect",
        "agents": {
            "main": {"model": {"script": [{"text": "done", "expect": step_expect}]}},
        },
        "run": ["go"],
    }
    data.update(overrides)
    return data


@pytest.mark.parametrize("expect_error", ANY_ERROR)
@pytest.mark.parametrize(
    "step_expect",
    [
        {"input": "something else"},
        {"input_contains": "something else"},
        {"tools": ["missing_tool"]},
        {"system_prompt": {"match": "^never$"}},
    ],
)
def test_a_failed_step_expectation_is_never_absorbed_by_expect_error(
    step_expect: dict[str, Any], expect_error: dict[str, Any]
) -> None:
    result = run_scenario(_scenario(step_expect, expect={"error": expect_error}))
    assert not result.passed
    assert isinstance(result.error, ScriptAssertionError)
    (mismatch,) = result.mismatches
    assert (mismatch.kind, mismatch.field) == ("step_expect", "run")
    assert "whatever expect.error says" in mismatch.message
    assert mismatch.actual is result.error


@pytest.mark.parametrize("expect_error", ANY_ERROR)
def test_a_turn_level_expect_error_cannot_absorb_it_either(expect_error: dict[str, Any]) -> None:
    data = _scenario({"input": "other"}, run=[{"input": "go", "expect": {"error": expect_error}}])
    result = run_scenario(data)
    assert [m.kind for m in result.mismatches] == ["step_expect"]


def test_a_failed_step_expectation_in_a_sub_agent_fails_the_scenario() -> None:
    data = {
        "scenario": "nested",
        "agents": {
            "main": {
                "policy": {"on_error": "report_to_model"},
                "model": {
                    "script": [
                        {"tool_calls": [{"id": "c1", "name": "delegate_h", "arguments": {}}]},
                        "done",
                    ]
                },
                "subagents": [{"agent": "h", "tool_name": "delegate_h"}],
            },
            "h": {"model": {"script": [{"text": "ok", "expect": {"input": "never"}}]}},
        },
        "run": ["go"],
        "expect": {"error": {"type": "Exception"}},
    }
    result = run_scenario(data)
    assert [m.kind for m in result.mismatches] == ["step_expect"]
    assert "agent 'h', script step 1" in str(result.mismatches[0].actual)


class Forgiving(ScriptedModel):
    """A plugin's model that catches its script's failed expectation and answers anyway."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        try:
            return await super().complete(request)
        except ScriptAssertionError:
            return ModelResponse(text="done anyway")


def test_a_failed_step_expectation_the_run_caught_still_fails_the_scenario() -> None:
    def factory(agent: str, spec: dict[str, Any]) -> ScriptedModel | None:
        if spec.get("kind") != "forgiving":
            return None
        return Forgiving([{"text": "done", "expect": {"input_contains": "never"}}])

    data = _scenario({}, expect={"output": "done anyway"})
    data["agents"]["main"]["model"] = {"kind": "forgiving"}
    result = run_scenario(data, model_factories=[factory])
    assert result.outputs == ["done anyway"]
    assert result.error is None
    (mismatch,) = result.mismatches
    assert mismatch.kind == "step_expect"
    assert isinstance(mismatch.actual, ScriptAssertionError)
    assert "expected the user input to contain 'never'" in str(mismatch.actual)


def test_an_expected_error_that_is_not_a_step_failure_still_passes() -> None:
    data = _scenario({"input": "go"}, expect={"error": {"type": "SimulatedModelError"}})
    data["agents"]["main"]["model"]["script"] = [{"error": "provider down", "expect": {}}]
    result = run_scenario(data)
    assert result.passed, result.render_failure()


def test_the_command_fails_every_scenario_of_the_hostile_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", str(FILE)]) == 1
    out = capsys.readouterr().out
    assert "== 0 passed, 3 failed, 0 error(s) ==" in out
    assert out.count("a script step's expectation failed") == 3


def test_pytest_fails_every_scenario_of_the_hostile_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / "steps.yaml").write_text(FILE.read_text("utf-8"), "utf-8")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-rf")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "FAILED scenarios/steps.yaml::step-expect-failed-any-error-type*",
            "FAILED scenarios/steps.yaml::step-expect-failed-empty-error*",
            "FAILED scenarios/steps.yaml::step-expect-failed-in-sub-agent*",
        ]
    )
    report = result.stdout.str()
    for index in range(3):
        assert f"scenarios.{index}.run: a script step's expectation failed; this fails" in report
