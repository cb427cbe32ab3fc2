"""The ``handoff_recording`` fixture with a pydantic-ai agent tree: the same conventions.

The "real" models are pydantic-ai ``FunctionModel``s standing in for a provider; each
call prints ``REAL <agent>``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic_ai", reason="needs the optional extra 'pydantic-ai'")

import handoff_sim.adapters.pydantic_ai  # noqa: F401  (kept across the inner sessions)

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
