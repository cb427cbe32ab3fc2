"""The ``handoff_recording`` fixture with framework agent trees: the same conventions.

pydantic-ai: the "real" models are ``FunctionModel``s standing in for a provider, each
call printing ``REAL <agent>``. openai-agents: the SDK's real ``OpenAIResponsesModel``
talks over HTTP to the scripted OpenAI server on 127.0.0.1, which is stopped before
the replays.
"""

from __future__ import annotations

import importlib

import pytest

from tests._helpers import extra_installed, needs_extra


@pytest.fixture(autouse=True)
def _framework_loaded_once() -> None:
    """Import the adapter before the inner sessions, which then keep it (they restore
    ``sys.modules`` to what it was when they started): each would import it again."""
    importlib.import_module("handoff_sim.recording")
    if extra_installed("pydantic_ai"):
        importlib.import_module("handoff_sim.adapters.pydantic_ai")
    if extra_installed("agents"):
        importlib.import_module("handoff_sim.adapters.openai_agents")


APP = """
import os

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel


def _answer(name, text):
    def model(messages, info):
        print("REAL", name)
        return ModelResponse(parts=[TextPart(text)])

    return FunctionModel(model)


def _triage(messages, info):
    print("REAL triage")
    last = messages[-1].parts[-1]
    if isinstance(last, ToolReturnPart):
        return ModelResponse(parts=[TextPart("triage: " + str(last.content))])
    return ModelResponse(parts=[ToolCallPart("refund", {"task": "refund"}, tool_call_id="c1")])


def build():
    billing = Agent(_answer("billing", "approved"), name="billing")
    audit = Agent(_answer("audit", "ok"), name="audit")
    triage = Agent(FunctionModel(_triage), name="triage")

    @triage.tool
    async def refund(ctx: RunContext[None], task: str) -> str:
        answer = (await billing.run(task)).output
        if os.environ.get("AUDIT"):  # the code now also asks an agent the recording lacks
            await audit.run("check " + answer)
        return answer

    return triage
"""

TEST = """
from app import build


def test_refund(handoff_recording):
    triage = build()
    with handoff_recording.use(triage):
        result = triage.run_sync("order 42")
    assert result.output == "triage: approved"
"""


def _real_calls(result: pytest.RunResult) -> list[str]:
    return [line.split("REAL ", 1)[1] for line in result.outlines if "REAL " in line]


@needs_extra("pydantic-ai", "pydantic_ai")
@pytest.mark.slow  # four sessions of pydantic-ai runs
def test_r5_pydantic_ai_tree_records_replays_and_blocks_an_agent_without_a_lane(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(app=APP, test_pai=TEST)
    session = ("-s", "-p", "no:cacheprovider")

    recorded = pytester.runpytest_inprocess(*session, "--handoff-record-mode=once")
    recorded.assert_outcomes(passed=1)
    assert _real_calls(recorded) == ["triage", "billing", "triage"]
    path = pytester.path / "recordings" / "test_pai" / "test_refund.yaml"
    assert "runtime: pydantic-ai" in path.read_text(encoding="utf-8")

    replayed = pytester.runpytest_inprocess(*session, "--handoff-block-models")
    replayed.assert_outcomes(passed=1)
    assert _real_calls(replayed) == []

    monkeypatch.setenv("AUDIT", "1")
    unblocked = pytester.runpytest_inprocess(*session)
    unblocked.assert_outcomes(passed=1)
    assert _real_calls(unblocked) == ["audit"]

    blocked = pytester.runpytest_inprocess(*session, "--handoff-block-models")
    blocked.assert_outcomes(failed=1)
    assert _real_calls(blocked) == []
    blocked.stdout.fnmatch_lines(
        [
            "*RealModelBlockedError: agent 'audit' called its real model during the replay "
            "of recordings/test_pai/test_refund.yaml*"
        ]
    )


OAI_APP = """
import os

from agents import Agent, OpenAIResponsesModel
from openai import AsyncOpenAI


def build():
    client = AsyncOpenAI(
        base_url=os.environ["TEST_OPENAI_URL"], api_key=os.environ["TEST_OPENAI_KEY"], max_retries=0
    )

    def agent(name, prompt, **options):
        model = OpenAIResponsesModel(model="gpt-4o", openai_client=client)
        return Agent(name=name, instructions=prompt, model=model, **options)

    billing = agent("billing", "You are billing: you issue refunds.")
    if os.environ.get("ROUTE") == "v2":  # the refund tool now runs a new agent
        billing_v2 = agent("billing_v2", "You are billing v2: you issue refunds.")
        tools = [
            billing_v2.as_tool(tool_name="billing", tool_description="refunds"),
            billing.as_tool(tool_name="legacy", tool_description="old refunds"),
        ]
    else:
        tools = [billing.as_tool(tool_name="billing", tool_description="refunds")]
    return agent("triage", "You are triage: send refunds to billing.", tools=tools)
"""

OAI_TEST = """
import asyncio

import pytest
from agents import Runner
from app import build

from handoff_sim.adapters.openai_agents import simulate_run

pytestmark = pytest.mark.handoff_recording(match="order")


def test_refund(handoff_recording):
    triage = build()
    with handoff_recording.use(triage):
        if handoff_recording.records:  # a real run, in real time
            output = asyncio.run(Runner.run(triage, "refund order 42")).final_output
        else:  # the replay, in virtual time
            output = simulate_run(Runner.run(triage, "refund order 42")).result.final_output
    assert output == "Refund issued."
"""


@needs_extra("openai-agents", "agents")
@pytest.mark.slow  # a real HTTP round trip and three sessions of SDK runs
def test_r5_openai_agents_recorded_over_http_replays_with_the_server_stopped(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.recording._openai_server import API_KEY, Answer, Call, Lanes, OpenAIServer

    server = OpenAIServer()
    server.start()
    calls = (Call(name="billing", arguments='{"input": "refund order 42"}'),)
    server.serve(
        Lanes(
            {
                "triage": [Answer(calls=calls), Answer(text="Refund issued.")],
                "billing": [Answer(text="refund issued", delay=0.05)],
            }
        )
    )
    monkeypatch.setenv("TEST_OPENAI_URL", server.base_url)
    monkeypatch.setenv("TEST_OPENAI_KEY", API_KEY)
    pytester.makepyfile(app=OAI_APP, test_oai=OAI_TEST)
    # The app's HTTP client, opened inside asyncio.run, is never closed by the app; when the
    # garbage collector reaps its sockets depends on the worker's other garbage, and the
    # warning it raises then is about the app, not about recording or replay.
    session = ("-p", "no:cacheprovider", "-W", "ignore::pytest.PytestUnraisableExceptionWarning")
    try:
        recorded = pytester.runpytest_inprocess(*session, "--handoff-record-mode=once")
    finally:
        server.stop()
    recorded.assert_outcomes(passed=1)
    assert server.errors == []
    assert len(server.requests) == 3
    text = (pytester.path / "recordings" / "test_oai" / "test_refund.yaml").read_text()
    assert "runtime: openai-agents" in text
    assert API_KEY not in text

    replayed = pytester.runpytest_inprocess(*session, "--handoff-block-models")
    replayed.assert_outcomes(passed=1)  # no server: every answer came from the file
    assert len(server.requests) == 3

    monkeypatch.setenv("ROUTE", "v2")
    blocked = pytester.runpytest_inprocess(*session, "--handoff-block-models")
    blocked.assert_outcomes(failed=1)
    blocked.stdout.fnmatch_lines(
        [
            "*RealModelBlockedError: agent 'billing_v2' called its real model during the "
            "replay of recordings/test_oai/test_refund.yaml*"
        ]
    )
    assert len(server.requests) == 3
