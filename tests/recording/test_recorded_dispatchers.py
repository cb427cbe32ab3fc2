"""Recording agent graphs the scenario form says with more than agents: SoPhi dispatchers
(agents built per delegation from agent types) and primary executors of an agent's own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from handoff_sim import Agent, SubAgent, Tool, ToolCall, simulate
from handoff_sim.errors import ReplayMismatchError
from handoff_sim.recording import Redaction, record, replay
from handoff_sim.scenarios import run_scenario, scenario_json_schema
from handoff_sim.styles.sophi import (
    AgentDefinition,
    ConfirmationRequest,
    sophi_agent,
    with_risk,
)
from handoff_sim.testing import ScriptedModel

NO_REDACTION = Redaction(defaults=False)


def _delegate(call_id: str, kind: str, prompt: str) -> dict[str, Any]:
    arguments = f'{{"subagent_type": "{kind}", "prompt": "{prompt}"}}'
    return {"id": call_id, "name": "delegate_to_subagent", "arguments": arguments}


def _tools() -> list[Tool]:
    async def read_file() -> str:
        return "contents"

    async def wipe() -> str:
        return "wiped"

    return [
        Tool("read_file", read_file, description="Read a file."),
        with_risk(Tool("wipe", wipe, description="Wipe the disk."), "destructive"),
    ]


def _sophi(
    explore_prompt: str = "You search.",
    confirmation: Callable[[Sequence[ConfirmationRequest]], dict[str, bool]] | None = None,
) -> Agent:
    """A SoPhi tree whose two agent types run on the main agent's own (shared) model."""
    shared = ScriptedModel(
        [
            {"tool_calls": [_delegate("d1", "explore", "find auth")]},
            {"tool_calls": [{"id": "r1", "name": "read_file", "arguments": "{}"}]},
            {"tool_calls": [{"id": "w1", "name": "wipe", "arguments": "{}"}]},
            {"text": "found it in auth.py"},
            {"tool_calls": [_delegate("d2", "review", "check auth.py")]},
            {"text": "looks fine"},
            {"text": "done"},
        ]
    )
    definitions = [
        AgentDefinition(
            name="explore",
            description="Read-only search",
            system_prompt=explore_prompt,
            allowed_tools=("read_file", "wipe"),
        ),
        AgentDefinition(
            name="review",
            description="Reviews changes",
            system_prompt="Reviews changes",
            model="reviewer-1",
        ),
    ]
    extra = {"confirmation_policy": confirmation} if confirmation is not None else {}
    return sophi_agent("main", shared, definitions=definitions, registry=_tools(), **extra)


def _deny(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
    return {r.call_id: False for r in requests}


def _recorded(agent: Agent, path: Path, task: str = "find the auth code") -> Any:
    with record(agent, path, redact=NO_REDACTION):
        result = simulate(agent, task)
    return result, yaml.safe_load(path.read_text())


def test_S_each_agent_type_a_dispatcher_builds_gets_its_own_lane_in_agent_types(
    tmp_path: Path,
) -> None:
    _, document = _recorded(_sophi(), tmp_path / "sophi.yaml")
    types = document["agent_types"]
    assert list(types) == ["explore", "review"]
    assert types["explore"]["system_prompt"] == "You search."
    assert types["explore"]["allowed_tools"] == ["read_file", "wipe"]
    assert types["review"]["model_name"] == "reviewer-1"
    assert "system_prompt" not in types["review"]  # the description is its prompt
    explore = [step.get("text") for step in types["explore"]["model"]["script"]]
    assert explore == [None, None, "found it in auth.py"]
    assert [s["text"] for s in types["review"]["model"]["script"]] == ["looks fine"]
    main = document["agents"]["main"]
    assert len(main["model"]["script"]) == 3
    assert main["dispatcher"] == {"agent_types": ["explore", "review"]}
    assert "subagents" not in main
    assert "policy" not in main
    assert document["tools"]["wipe"]["risk"] == "destructive"
    assert "notes" not in document["recorded"]


def test_S_a_dispatcher_recording_replays_into_a_freshly_built_tree_and_standalone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sophi.yaml"
    real, _ = _recorded(_sophi(), path)
    again = _sophi()
    with replay(again, path):
        replayed = simulate(again, "find the auth code")
    assert replayed.output == real.output == "done"
    assert replayed.trace.to_jsonl() == real.trace.to_jsonl()
    result = run_scenario(path)
    assert result.passed, result.render_failure()


def test_S_replay_fails_naming_the_agent_type_whose_prompt_changed(tmp_path: Path) -> None:
    path = tmp_path / "sophi.yaml"
    _recorded(_sophi(), path)
    changed = _sophi(explore_prompt="You search, carefully.")
    with pytest.raises(ReplayMismatchError) as raised, replay(changed, path):
        simulate(changed, "find the auth code")
    assert "'explore'" in str(raised.value)
    assert "system prompt" in str(raised.value)


def test_a_confirmation_function_the_file_cannot_name_is_said_in_a_note(tmp_path: Path) -> None:
    _, document = _recorded(_sophi(confirmation=_deny), tmp_path / "sophi.yaml")
    notes = document["recorded"]["notes"]
    assert any("confirmation policy is a function" in note for note in notes)
    assert "confirm" not in document["agents"]["main"]["dispatcher"]


def test_a_call_the_confirmation_policy_refused_is_no_answer_of_the_tool(tmp_path: Path) -> None:
    _, document = _recorded(_sophi(confirmation=_deny), tmp_path / "sophi.yaml")
    assert document["tools"]["wipe"]["answers"] == []  # refused: wipe never ran
    assert [a["returns"] for a in document["tools"]["read_file"]["answers"]] == ["contents"]


# -- a primary executor of the agent's own ---------------------------------------------------


class _Executor:
    """Serves the agent's own tools and answers every other name with ``answer(call)``."""

    def __init__(self, tools: list[Tool], answer: Callable[[ToolCall], str]) -> None:
        self.tools = {t.name: t for t in tools}
        self.answer = answer

    async def execute(self, call: ToolCall) -> str:
        return self.answer(call)


def _with_executor(answer: Callable[[ToolCall], str]) -> Agent:
    """An agent whose model calls two tool names it was never given."""
    model = ScriptedModel(
        [
            {
                "tool_calls": [
                    {"id": "c1", "name": "search", "arguments": '{"q":"a"}'},
                    {"id": "c2", "name": "fetch", "arguments": '{"q":"b"}'},
                ]
            },
            {"text": "done"},
        ]
    )
    return Agent("main", model, tool_executor=_Executor([], answer))


def test_S_an_executor_answering_alike_is_written_with_the_tool_and_arguments_filled_in(
    tmp_path: Path,
) -> None:
    path = tmp_path / "executor.yaml"
    agent = _with_executor(lambda call: f"served {call.name} with {call.arguments}")
    with record(agent, path, redact=NO_REDACTION):
        recorded = simulate(agent, "go")
    document = yaml.safe_load(path.read_text())
    assert document["agents"]["main"]["tool_executor"] == {
        "returns": "served {tool} with {arguments}"
    }
    jsonschema.validate(document, scenario_json_schema())
    result = run_scenario(path)
    assert result.passed, result.render_failure()
    assert result.trace.to_jsonl() == recorded.trace.to_jsonl()


def test_an_executor_answering_each_call_differently_is_named_in_a_note(tmp_path: Path) -> None:
    path = tmp_path / "executor.yaml"
    answers = iter(["first", "second"])
    agent = _with_executor(lambda call: next(answers))
    with record(agent, path, redact=NO_REDACTION):
        simulate(agent, "go")
    document = yaml.safe_load(path.read_text())
    assert "tool_executor" not in document["agents"]["main"]
    assert any("answered 2 calls differently" in n for n in document["recorded"]["notes"])


def test_S_a_fallback_to_the_primary_executor_is_written_as_its_tool_executor(
    tmp_path: Path,
) -> None:
    from handoff_sim import HandoffPolicy

    worker = Agent("worker", ScriptedModel([{"error": "worker down"}]))
    model = ScriptedModel(
        [
            {"tool_calls": [{"id": "c1", "name": "worker", "arguments": '{"input":"x"}'}]},
            {"text": "handled"},
        ]
    )
    manager = Agent(
        "manager",
        model,
        subagents=[SubAgent("worker", agent=worker, tool_name="worker")],
        handoff_policy=HandoffPolicy(on_error="fallback_to_primary", max_retries=0),
        tool_executor=_Executor([], lambda call: "the primary served it"),
    )
    path = tmp_path / "fallback.yaml"
    with record(manager, path, redact=NO_REDACTION):
        recorded = simulate(manager, "go")
    document = yaml.safe_load(path.read_text())
    assert document["agents"]["manager"]["tool_executor"] == {"returns": "the primary served it"}
    assert document["expect"]["handoffs"][0]["status"] == "fallback"
    result = run_scenario(path)
    assert result.passed, result.render_failure()
    assert result.trace.to_jsonl() == recorded.trace.to_jsonl()


def test_record_inside_override_models_records_the_agent_type_s_override(tmp_path: Path) -> None:
    from handoff_sim.testing import override_models

    agent = _sophi()
    reviewer = ScriptedModel([{"text": "overridden review"}])
    path = tmp_path / "sophi.yaml"
    with override_models(agent, {"review": reviewer}), record(agent, path, redact=NO_REDACTION):
        simulate(agent, "find the auth code")
    document = yaml.safe_load(path.read_text())
    script = document["agent_types"]["review"]["model"]["script"]
    assert [step["text"] for step in script] == ["overridden review"]


def test_a_dispatcher_recording_validates_against_the_json_schema(tmp_path: Path) -> None:
    _, document = _recorded(_sophi(confirmation=_deny), tmp_path / "sophi.yaml")
    jsonschema.validate(document, scenario_json_schema())
