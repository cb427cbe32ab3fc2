"""A test catches the ``handoff_recording`` fixture's errors by their names, imported from
``pytest_handoff``: a missing recording, and a real model called during a blocked replay."""

from __future__ import annotations

import pytest

# Imported once here, so the inner sessions share these modules (and so the error classes).
import handoff_sim.recording  # noqa: F401
import pytest_handoff._recording_errors  # noqa: F401

TESTS = """
import json
import os

import pytest

from handoff_sim import Agent, SubAgent, ToolCall, simulate
from handoff_sim.testing import FunctionModel
from pytest_handoff import MissingRecordingError, RealModelBlockedError

pytestmark = pytest.mark.handoff_recording(match="order")  # a new tool list replays too


def _triage(request):
    last = request.messages[-1]
    if last.role == "user":
        return [ToolCall("c1", "subagent_billing", json.dumps({"task": "refund"}))]
    return "triage: " + last.content


def build():
    billing = Agent("billing", FunctionModel(lambda request: "approved"))
    if os.environ.get("ROUTE") != "v2":
        sub = SubAgent("billing", "refunds", billing, tool_name="subagent_billing")
        return Agent("triage", FunctionModel(_triage), subagents=[sub])
    # refunds now go to an agent the recording has no lane for; the old one stays
    billing_v2 = Agent("billing_v2", FunctionModel(lambda request: "approved"))
    subs = [
        SubAgent("billing", "refunds", billing_v2, tool_name="subagent_billing"),
        SubAgent("legacy", "old refunds", billing, tool_name="subagent_legacy"),
    ]
    return Agent("triage", FunctionModel(_triage), subagents=subs)


def test_refund(handoff_recording):
    triage = build()
    expected = os.environ.get("EXPECT")
    if expected == "missing":
        with pytest.raises(MissingRecordingError, match="no recording at"):
            with handoff_recording.use(triage):
                pass
    elif expected == "blocked":
        with pytest.raises(RealModelBlockedError) as caught:
            with handoff_recording.use(triage):
                simulate(triage, "order 42")
        assert caught.value.agent == "billing_v2"
    else:
        with handoff_recording.use(triage):
            assert simulate(triage, "order 42").output.startswith("triage: ")
    print("CAUGHT" if expected else "RAN", handoff_recording.mode)
"""


def _session(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-s", "-p", "no:cacheprovider", *args)


def test_the_recording_errors_are_caught_by_their_names_from_pytest_handoff(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_refund=TESTS)

    monkeypatch.setenv("EXPECT", "missing")  # replay only, and nothing recorded yet
    missing = _session(pytester, "--handoff-record-mode=none")
    missing.assert_outcomes(passed=1)
    missing.stdout.fnmatch_lines(["*CAUGHT none*"])

    monkeypatch.delenv("EXPECT")
    _session(pytester, "--handoff-record-mode=once").assert_outcomes(passed=1)

    monkeypatch.setenv("EXPECT", "blocked")
    monkeypatch.setenv("ROUTE", "v2")  # the recorded call now reaches an agent with no lane
    blocked = _session(pytester, "--handoff-block-models")
    blocked.assert_outcomes(passed=1)
    blocked.stdout.fnmatch_lines(["*CAUGHT none*"])
