"""Hostile model output: tool-call arguments nested too deeply for the JSON reader, values
JSON cannot write, and malformed responses from a custom model client.

Each run goes through ``run_hostile``: every start has its end and no task is left over.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from handoff_sim import (
    Agent,
    ConfigurationError,
    FailureAction,
    HandoffPolicy,
    SubAgent,
    Trace,
    tool,
)
from handoff_sim._tools import ToolSetExecutor, parse_arguments
from handoff_sim.errors import ModelResponseError, ScriptError
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall
from handoff_sim.styles.flink import FlinkSubAgent, decode_output
from handoff_sim.styles.sophi import AgentDefinition, sophi_agent
from handoff_sim.styles.sophi._arguments import parse_delegation
from handoff_sim.subagents._input import resolve_input, unwrap_output
from handoff_sim.testing import ScriptedModel
from tests._helpers import call, delegate, leaf, parent_of, turn
from tests.hostile._support import run_hostile

DEEP = 1500
DEEP_ARGUMENTS = '{"q":' + "[" * DEEP + "]" * DEEP + "}"
DEEP_TASK = '{"task":' + "[" * DEEP + "]" * DEEP + "}"
DEEP_DELEGATION = '{"subagent_type":"helper","prompt":' + "[" * DEEP + "]" * DEEP + "}"
TOO_DEEP = "arguments must be a JSON object (these are nested too deeply)"


@tool
def search(q: str) -> str:
    """Search for ``q``."""
    return f"found {q}"


def fields(trace: Trace, event_type: str) -> list[dict[str, Any]]:
    """The events of one type, as dicts."""
    return [e.to_dict() for e in trace.of_type(event_type)]


def tool_ends(trace: Trace) -> dict[str, tuple[str, str | None]]:
    """``call_id -> (status, output)`` of every ``tool_end``."""
    return {e["call_id"]: (e["status"], e["output"]) for e in fields(trace, "tool_end")}


def handoff_events(trace: Trace) -> list[str]:
    return [e.type for e in trace if e.type.startswith("handoff")]


# -- arguments nested too deeply to read (issue item 1) ---------------------------------


@pytest.mark.parametrize("parallel", [False, True], ids=["sequential", "parallel"])
def test_deeply_nested_arguments_are_an_error_result_for_plain_unknown_and_subagent_tools(
    parallel: bool,
) -> None:
    worker = leaf("worker")
    agent = Agent(
        "main",
        ScriptedModel(
            [
                turn(
                    call("search", DEEP_ARGUMENTS, id="c1"),
                    call("no_such_tool", DEEP_ARGUMENTS, id="c2"),
                    call("delegate_worker", DEEP_TASK, id="c3"),
                ),
                "went on",
            ]
        ),
        tools=[search],
        subagents=[SubAgent("worker", "w", worker, tool_name="delegate_worker")],
        parallel_tool_calls=parallel,
    )
    outcome = run_hostile(agent)
    assert outcome.result.output == "went on"
    assert tool_ends(outcome.trace) == {
        "c1": ("error", f"search {TOO_DEEP}"),
        "c2": ("error", f"no_such_tool {TOO_DEEP}"),
        "c3": ("error", f"delegate_worker {TOO_DEEP}"),
    }
    assert handoff_events(outcome.trace) == []


def test_deeply_nested_arguments_are_an_error_result_for_flink_and_sophi_delegation() -> None:
    reviewer_model = ScriptedModel(["never"])
    helper_model = ScriptedModel(["never"])
    agent = sophi_agent(
        "main",
        ScriptedModel(
            [
                turn(
                    call("subagent_reviewer", DEEP_ARGUMENTS, id="f1"),
                    call("delegate_to_subagent", DEEP_DELEGATION, id="d1"),
                ),
                "went on",
            ]
        ),
        definitions=[AgentDefinition(name="helper", description="helps", system_prompt="Help.")],
        models={"helper": helper_model},
    )
    agent.executor.mounts["subagent_reviewer"] = FlinkSubAgent(
        "reviewer", agent=Agent("reviewer", reviewer_model), input_schema={"type": "object"}
    )
    outcome = run_hostile(agent)
    assert outcome.result.output == "went on"
    assert tool_ends(outcome.trace) == {
        "f1": ("error", f"subagent_reviewer {TOO_DEEP}"),
        "d1": ("error", f"delegate_to_subagent {TOO_DEEP}"),
    }
    assert handoff_events(outcome.trace) == []
    assert helper_model.requests == reviewer_model.requests == []
    assert parse_delegation(DEEP_DELEGATION) == TOO_DEEP


def test_the_framework_adapters_refuse_deep_arguments_like_the_loop() -> None:
    from handoff_sim.adapters._governed import arguments_problem

    assert arguments_problem(ToolCall("c1", "delegate", DEEP_TASK)) == f"delegate {TOO_DEEP}"


def test_deep_text_reaching_input_resolution_or_result_reading_passes_through_raw() -> None:
    # Text that cannot be read as an object is used as it is (S4, F4).
    assert resolve_input(DEEP_TASK) == DEEP_TASK
    assert unwrap_output(DEEP_TASK) == DEEP_TASK
    assert decode_output(DEEP_TASK) == DEEP_TASK


def test_a_tool_executor_called_directly_refuses_deep_arguments_with_a_value_error() -> None:
    deep_call = ToolCall("c1", "search", DEEP_ARGUMENTS)
    with pytest.raises(ValueError, match="nested too deeply") as raised:
        parse_arguments(deep_call)
    assert str(raised.value) == f"search {TOO_DEEP}"
    with pytest.raises(ValueError, match="nested too deeply"):
        asyncio.run(ToolSetExecutor([search]).execute(deep_call))


def test_a_sub_agent_answer_nested_too_deeply_is_carried_as_text() -> None:
    deep_output = '{"output":' + "[" * DEEP + "]" * DEEP + "}"
    agent = parent_of(
        [
            SubAgent("worker", "w", leaf("worker", deep_output), tool_name="delegate_worker"),
            FlinkSubAgent(
                "reviewer", agent=leaf("reviewer", deep_output), input_schema={"type": "object"}
            ),
        ],
        turn(delegate("delegate_worker", id="c1"), delegate("subagent_reviewer", id="f1")),
    )
    outcome = run_hostile(agent)
    ends = tool_ends(outcome.trace)
    assert ends["f1"] == ("ok", deep_output)
    assert ends["c1"][0] == "ok"
    assert deep_output.replace('"', '\\"') in str(ends["c1"][1])
    assert [e["status"] for e in fields(outcome.trace, "handoff_end")] == ["completed"] * 2


def test_arguments_with_too_many_digits_or_lone_surrogates_do_not_crash_the_run() -> None:
    agent = Agent(
        "main",
        ScriptedModel(
            [
                turn(
                    call("search", '{"q": 1' + "0" * 5000 + "}", id="c1"),
                    call("search", '{"q": "\\ud800"}', id="c2"),
                ),
                "went on",
            ]
        ),
        tools=[search],
    )
    outcome = run_hostile(agent)
    assert tool_ends(outcome.trace) == {
        "c1": ("error", "search arguments must be a JSON object"),
        "c2": ("ok", "found \ud800"),
    }
    assert Trace.from_jsonl(outcome.trace.to_jsonl()) == outcome.trace


def _deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _circular() -> dict[str, Any]:
    value: dict[str, Any] = {}
    value["self"] = value
    return value


@pytest.mark.parametrize(
    ("returned", "problem"),
    [
        (_deep_list(100_000), "is nested too deeply to write as JSON"),
        (_circular(), "cannot be written as JSON: ValueError: Circular reference detected"),
    ],
    ids=["deep", "circular"],
)
def test_a_tool_result_json_cannot_write_is_an_error_result(returned: object, problem: str) -> None:
    @tool
    def odd(q: str) -> object:
        """Return something JSON cannot write."""
        return returned

    model = ScriptedModel([turn(call("odd", {"q": "x"}, id="c1")), "went on"])
    outcome = run_hostile(Agent("main", model, tools=[odd]))
    assert outcome.result.output == "went on"
    assert tool_ends(outcome.trace)["c1"] == (
        "error",
        f"Error: ValueError: the result of tool 'odd' {problem}",
    )


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"q": b"bytes"}, "cannot be written as JSON: TypeError: Object of type bytes"),
        ({"q": _deep_list(100_000)}, "is nested too deeply to write as JSON"),
        (_circular(), "cannot be written as JSON: ValueError: Circular reference"),
    ],
    ids=["bytes", "deep", "circular"],
)
def test_scripted_arguments_json_cannot_write_are_a_configuration_error_naming_the_step(
    arguments: dict[str, Any], problem: str
) -> None:
    expected = rf"^script step 2: tool call 'search': arguments {problem}"
    with pytest.raises(ConfigurationError, match=expected):
        ScriptedModel(["first", turn(call("search", arguments))])


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("[" * 5000 + "]" * 5000, "trace line 1 is nested too deeply to read"),
        ("not json", "trace line 1 is not valid JSON"),
        ('{"type": "no_such_event"}', "trace line 1: not an event: KeyError"),
    ],
)
def test_a_hostile_trace_line_is_a_value_error_naming_the_line(line: str, problem: str) -> None:
    with pytest.raises(ValueError, match=f"^{problem}"):
        Trace.from_jsonl(line)


# -- a custom model client returning a malformed response (issue item 6) --------------


class Returns:
    """A custom model client: ``first`` answers the first request, ``value`` every later one."""

    model_name = "custom"

    def __init__(self, value: object, first: ModelResponse | None = None) -> None:
        self.value = value
        self.first = first
        self.calls = 0

    async def complete(self, request: ModelRequest) -> Any:
        self.calls += 1
        return self.first if self.calls == 1 and self.first is not None else self.value


class Answers:
    """A custom model client that answers with ``responses`` in order."""

    model_name = "custom"

    def __init__(self, *responses: object) -> None:
        self.responses = list(responses)

    async def complete(self, request: ModelRequest) -> Any:
        return self.responses.pop(0)


def _response(**fields: Any) -> ModelResponse:
    """A ModelResponse built without type checks, as a careless client would build it."""
    return ModelResponse(**fields)


def _call(*values: Any) -> ToolCall:
    return ToolCall(*values)


MALFORMED = [
    pytest.param(None, r"complete\(\) returned NoneType, expected a ModelResponse", id="none"),
    pytest.param({"text": "x"}, r"complete\(\) returned dict, expected a ModelResponse", id="dict"),
    pytest.param(_response(text=12345), "text must be a str or None, got int", id="text-int"),
    pytest.param(
        _response(tool_calls=None),
        "tool_calls must be a list or tuple of ToolCall, got NoneType",
        id="calls-none",
    ),
    pytest.param(
        _response(tool_calls="search"),
        "tool_calls must be a list or tuple of ToolCall, got str",
        id="calls-str",
    ),
    pytest.param(
        _response(tool_calls=[{"id": "c1", "name": "search", "arguments": "{}"}]),
        r"tool_calls\[0\] must be a ToolCall, got dict",
        id="calls-dicts",
    ),
    pytest.param(
        _response(tool_calls=(ToolCall("c1", "search"), "search")),
        r"tool_calls\[1\] must be a ToolCall, got str",
        id="calls-mixed",
    ),
    pytest.param(
        _response(tool_calls=(_call(7, "search"),)),
        r"tool_calls\[0\]\.id must be a str or None, got int",
        id="id-int",
    ),
    pytest.param(
        _response(tool_calls=(_call("c1", None),)),
        r"tool_calls\[0\]\.name must be a str, got NoneType",
        id="name-none",
    ),
    pytest.param(
        _response(tool_calls=(_call("c1", "search", {"q": "x"}),)),
        r"tool_calls\[0\]\.arguments must be the raw JSON text \(a str\), got dict",
        id="arguments-dict",
    ),
    pytest.param(
        _response(tool_calls=(_call("c1", "search", b"{}"),)),
        r"tool_calls\[0\]\.arguments must be the raw JSON text \(a str\), got bytes",
        id="arguments-bytes",
    ),
]


@pytest.mark.parametrize(("response", "problem"), MALFORMED)
def test_a_malformed_model_response_is_a_model_response_error_naming_agent_and_step(
    response: object, problem: str
) -> None:
    first = ModelResponse(tool_calls=(ToolCall("c1", "search", '{"q": "x"}'),))
    agent = Agent("odd", Returns(response, first=first), tools=[search])
    outcome = run_hostile(agent, expect=ModelResponseError)
    error = outcome.error
    assert isinstance(error, ModelResponseError)
    assert isinstance(error, ScriptError)
    assert isinstance(error, TypeError)
    assert (error.agent, error.step) == ("odd", 2)
    assert str(error).startswith("agent 'odd', model call 2: malformed model response: ")
    assert re.search(problem, str(error))
    assert fields(outcome.trace, "run_end")[-1]["status"] == "failed"


@pytest.mark.parametrize("parallel", [False, True], ids=["sequential", "parallel"])
def test_a_malformed_response_inside_a_sub_agent_is_never_retried_nor_shown_to_the_parent(
    parallel: bool,
) -> None:
    broken = Agent("broken", Returns(_response(tool_calls=None)))
    fine = leaf("fine", {"text": "fine-done", "latency": 5})
    agent = parent_of(
        [
            SubAgent("broken", "b", broken, tool_name="delegate_broken"),
            SubAgent("fine", "f", fine, tool_name="delegate_fine"),
        ],
        turn(delegate("delegate_broken", id="c1"), delegate("delegate_fine", id="c2")),
        policy=HandoffPolicy(max_retries=3, on_error=FailureAction.REPORT_TO_MODEL),
        parallel_tool_calls=parallel,
    )
    outcome = run_hostile(agent, expect=ModelResponseError)
    assert "agent 'broken', model call 1" in str(outcome.error)
    assert broken.model.calls == 1  # type: ignore[attr-defined]
    handoff_ends = fields(outcome.trace, "handoff_end")
    assert (handoff_ends[0]["tool"], handoff_ends[0]["status"], handoff_ends[0]["attempts"]) == (
        "delegate_broken",
        "failed",
        1,
    )
    if parallel:
        assert tool_ends(outcome.trace)["c2"] == ("cancelled", None)
        assert handoff_ends[1]["status"] == "cancelled"
    else:
        assert len(handoff_ends) == 1


@pytest.mark.parametrize(
    "final",
    [_response(text="done", tool_calls=[]), ModelResponse(text="done")],
    ids=["list", "tuple"],
)
def test_a_list_of_tool_calls_and_blank_or_none_ids_are_accepted(final: ModelResponse) -> None:
    first = _response(
        tool_calls=[_call(None, "search", '{"q": "a"}'), ToolCall("", "search", '{"q": "b"}')]
    )
    outcome = run_hostile(Agent("main", Answers(first, final), tools=[search]))
    assert outcome.result.output == "done"
    assert tool_ends(outcome.trace) == {
        "call_1_0": ("ok", "found a"),
        "call_1_1": ("ok", "found b"),
    }


def test_a_model_client_with_a_sync_complete_is_accepted() -> None:
    class Sync:
        model_name = "sync"

        def complete(self, request: ModelRequest) -> ModelResponse:
            return ModelResponse(text="sync answer")

    agent = Agent("main", Sync())  # type: ignore[arg-type]
    assert run_hostile(agent).result.output == "sync answer"
