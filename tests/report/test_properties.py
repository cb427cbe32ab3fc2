"""Any generated agent tree: the report draws every handoff and attempt, and stays text."""

from __future__ import annotations

import contextlib
import json
import re

from hypothesis import HealthCheck, given, settings

from handoff_sim import Agent
from handoff_sim import strategies as hs
from handoff_sim.events import HandoffAttemptStartEvent, HandoffStartEvent, RunStartEvent
from handoff_sim.report import ReportEntry, render_report
from handoff_sim.report._timeline import build_timeline
from handoff_sim.simulation import Simulation

SOME = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SOME
@given(agent=hs.agent_trees(max_depth=3, max_breadth=3))
def test_every_handoff_and_attempt_of_any_run_is_drawn(agent: Agent) -> None:
    with Simulation(seed=0) as sim:
        with contextlib.suppress(Exception):  # a failing run still has a trace to draw
            sim.run(agent, "go")
        trace = sim.trace

    rows = [r for r in build_timeline(trace.events).rows if r.kind == "handoff"]

    starts = [e for e in trace if isinstance(e, HandoffStartEvent)]
    attempts = [e for e in trace if isinstance(e, HandoffAttemptStartEvent)]
    assert len(rows) == len(starts)
    assert sum(s.attempt > 0 for r in rows for s in r.segments) == len(attempts)
    assert all(r.start <= r.end for r in rows)
    page = render_report(
        [ReportEntry(id="generated", path="gen.yaml", line=1, status="passed", trace=trace)]
    )
    for data in re.findall(r'<script type="application/json">(.*?)</script>', page):
        assert "<" not in data
        top_runs = {
            e.run_id for e in trace if isinstance(e, RunStartEvent) and e.parent_run_id is None
        }
        assert len(json.loads(data)["rows"]) == len(rows) + len(top_runs)
