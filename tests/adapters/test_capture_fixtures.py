"""The ``openai_agents_capture`` and ``pydantic_ai_capture`` fixtures record the test's runs."""

from __future__ import annotations

import pytest

from tests.adapters._extras import hide

OPENAI_TEST = """
import asyncio
from agents import Agent, Runner
from handoff_sim.adapters.openai_agents import SimModel
from handoff_sim.testing import ScriptedModel

def test_delegation(openai_agents_capture):
    helper = Agent(name="helper", model=SimModel(ScriptedModel(["facts"])))
    boss = Agent(
        name="boss",
        model=SimModel(ScriptedModel([
            {"tool_calls": [{"id": "c1", "name": "ask", "arguments": {"input": "x"}}]}, "done",
        ])),
        tools=[helper.as_tool("ask", "Ask the helper")],
    )
    assert asyncio.run(Runner.run(boss, "go")).final_output == "done"
    [record] = openai_agents_capture.trace.handoffs()
    assert (record.tool, record.subagent, record.status) == ("ask", "helper", "completed")
"""

PYDANTIC_TEST = """
import asyncio
from pydantic_ai import Agent
from handoff_sim.adapters.pydantic_ai import SimModel, governed
from handoff_sim.testing import ScriptedModel

def test_delegation(pydantic_ai_capture):
    helper = Agent(SimModel(ScriptedModel(["facts"])), name="helper")
    boss = Agent(
        SimModel(ScriptedModel([
            {"tool_calls": [{"id": "c1", "name": "ask", "arguments": {"task": "x"}}]}, "done",
        ])),
        name="boss",
        tools=[governed(helper, name="ask")],
    )
    assert asyncio.run(boss.run("go")).output == "done"
    [record] = pydantic_ai_capture.trace.handoffs()
    assert (record.tool, record.subagent, record.status) == ("ask", "helper", "completed")
"""


@pytest.mark.parametrize(
    ("module", "extra", "source"),
    [("agents", "openai-agents", OPENAI_TEST), ("pydantic_ai", "pydantic-ai", PYDANTIC_TEST)],
)
def test_a_capture_fixture_records_the_runs_of_the_test(
    module: str, extra: str, source: str, pytester: pytest.Pytester
) -> None:
    pytest.importorskip(
        module, reason=f"needs the {extra!r} extra: pip install 'handoff-sim[{extra}]'"
    )
    pytester.makepyfile(source)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_capture_fixture_without_its_extra_names_the_extra(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    hide(monkeypatch, "agents", "handoff_sim.adapters.openai_agents")
    pytester.makepyfile("def test_it(openai_agents_capture):\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*MissingExtraError*needs the optional extra 'openai-agents'*"])
