"""Timeline rows: a lane per run and per handoff, attempts as segments, parallel groups."""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim.events import (
    HandoffAttemptStartEvent,
    HandoffStartEvent,
    RunEndEvent,
    RunStartEvent,
)
from handoff_sim.report import ReportEntry, render_report
from handoff_sim.report._timeline import Row, build_timeline
from handoff_sim.scenarios import load_path, run_scenario
from handoff_sim.trace import Trace
from tests.report._support import ROOT, showcase, wide


def _by_name(rows: tuple[Row, ...]) -> dict[str, Row]:
    return {r.name: r for r in rows if r.kind == "handoff"}


def test_showcase_has_a_row_per_run_and_handoff_nested_by_who_delegated() -> None:
    timeline = build_timeline(showcase()[0].trace.events)

    assert timeline.mode == "time"
    assert timeline.end == 42
    assert [(r.kind, r.depth, r.name) for r in timeline.rows] == [
        ("run", 0, "manager"),
        ("handoff", 1, "security"),
        ("handoff", 1, "docs"),
        ("handoff", 2, "spelling"),
        ("handoff", 2, "links"),
        ("handoff", 1, "tests"),
        ("handoff", 1, "deploy"),
    ]
    assert timeline.handoffs == 6


def test_each_attempt_is_a_segment_with_its_outcome_and_virtual_times() -> None:
    rows = _by_name(build_timeline(showcase()[0].trace.events).rows)

    security = rows["security"]
    assert (security.start, security.end, security.status) == (0, 42, "completed")
    assert [(s.start, s.end, s.status, s.label) for s in security.segments] == [
        (0, 30, "timeout", "#1 ◷ timeout 30s"),
        (30, 42, "ok", "#2 ✓ ok 12s"),
    ]
    assert security.outcome == "✓ completed · 42s · 2 attempts: ◷ timeout, ✓ ok"
    links = rows["links"]
    assert [(s.status, s.attempt) for s in links.segments] == [("timeout", 1), ("fallback", 0)]
    assert links.outcome.startswith("↩ fallback: timeout")
    deploy = rows["deploy"]
    assert (deploy.status, deploy.segments) == ("denied", ())
    assert deploy.outcome == "⊘ denied: denied_tool · 0ms"


def test_siblings_whose_events_interleave_form_one_parallel_group_per_level() -> None:
    rows = build_timeline(showcase()[0].trace.events).rows
    groups = {r.name: (r.group, r.group_size) for r in rows if r.kind == "handoff"}

    outer = groups["security"][0]
    inner = groups["spelling"][0]
    assert outer
    assert inner
    assert outer != inner
    assert groups == {
        "security": (outer, 4),
        "docs": (outer, 4),
        "tests": (outer, 4),
        "deploy": (outer, 4),
        "spelling": (inner, 2),
        "links": (inner, 2),
    }
    # the outer bracket runs from security to deploy, past the nested rows
    brackets = [r.brackets for r in rows]
    assert brackets[1] == ((1, "f"),)
    assert brackets[3] == ((1, "p"), (2, "f"))
    assert brackets[6] == ((1, "l"),)


def test_sequential_siblings_are_not_a_parallel_group() -> None:
    scenario = load_path(ROOT / "scenarios/ai4j/retries_exhausted.yaml")[0]
    timeline = build_timeline(run_scenario(scenario).trace.events)

    assert timeline.groups == 0
    assert all(r.group == 0 and not r.brackets for r in timeline.rows)


def test_a_run_without_virtual_time_is_laid_out_in_event_order() -> None:
    scenario = load_path(ROOT / "scenarios/ai4j/nested_depth.yaml")[0]
    trace = run_scenario(scenario).trace
    timeline = build_timeline(trace.events)

    assert timeline.mode == "order"
    assert timeline.end == len(trace)
    helper = _by_name(timeline.rows)["helper"]
    starts = [
        e.seq for e in trace if isinstance(e, HandoffStartEvent) and e.tool == "delegate_helper"
    ]
    assert helper.start == starts[0] - 1  # the slot of its handoff_start
    assert helper.status == "denied"
    assert next(label for _, label in timeline.ticks) == "#1"


def test_a_handoff_that_never_ended_is_shown_open_to_the_end_of_the_trace() -> None:
    who: dict[str, Any] = {"agent": "boss", "depth": 0, "run_id": "r1"}
    ids: dict[str, Any] = {"handoff_id": "h1", "call_id": "c1", "tool": "delegate_w"}
    trace = Trace(
        [
            RunStartEvent(seq=1, t=0, input="go", session_id="s", **who),
            HandoffStartEvent(
                seq=2,
                t=1,
                parent_handoff_id=None,
                subagent="w",
                session_mode="new_session",
                session_id=None,
                **who,
                **ids,
            ),
            HandoffAttemptStartEvent(seq=3, t=1, attempt=1, **who, **ids),
            RunEndEvent(seq=4, t=5, status="failed", output=None, steps=1, **who),
        ]
    )
    rows = build_timeline(trace.events).rows

    handoff = rows[1]
    assert (handoff.status, handoff.start, handoff.end) == ("open", 1, 5)
    assert "handoff_start without handoff_end" in handoff.outcome
    assert [(s.status, s.label) for s in handoff.segments] == [("open", "#1 ⚠ open never ended")]


@pytest.mark.slow  # a thousand handoffs, run and drawn
def test_a_thousand_parallel_handoffs_are_one_group_of_compact_rows() -> None:
    trace = wide().trace
    timeline = build_timeline(trace.events)

    handoffs = [r for r in timeline.rows if r.kind == "handoff"]
    assert len(handoffs) == timeline.handoffs == 1000
    assert {(r.group, r.group_size) for r in handoffs} == {(1, 1000)}
    records = trace.handoffs()
    assert [tuple(s.status for s in r.segments) for r in handoffs] == [
        r.attempt_outcomes for r in records
    ]
    assert sum(len(r.segments) == 2 for r in handoffs) > 50  # retried after a timeout


def test_times_no_axis_can_hold_are_drawn_at_zero() -> None:
    who: dict[str, Any] = {"agent": "boss", "depth": 0, "run_id": "r1"}
    trace = Trace(
        [
            RunStartEvent(seq=1, t=float("nan"), input="go", session_id="s", **who),
            RunEndEvent(seq=2, t=float("inf"), status="completed", output="x", steps=1, **who),
        ]
    )

    timeline = build_timeline(trace.events)

    assert (timeline.mode, timeline.rows[0].start, timeline.rows[0].end) == ("order", 0, 2)
    assert render_report([ReportEntry(id="odd", path="x", line=0, status="passed", trace=trace)])
