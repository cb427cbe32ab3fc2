"""Durations and axis ticks read as a person writes them."""

from __future__ import annotations

import pytest

from handoff_sim.report._axis import format_duration, order_ticks, time_ticks


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0ms"),
        (0.0005, "500us"),
        (0.00125, "1.25ms"),
        (0.25, "250ms"),
        (1, "1s"),
        (1.5, "1.5s"),
        (30, "30s"),
        (59.999, "59.999s"),
        (60, "1m"),
        (90, "1m30s"),
        (90.5, "1m30.5s"),
        (3600, "1h"),
        (3725, "1h2m5s"),
        (86400 * 366, "366d"),
    ],
)
def test_durations_read_in_the_largest_fitting_units(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_time_ticks_fall_on_round_steps_with_readable_labels() -> None:
    assert time_ticks(42) == [
        (0.0, "0"),
        (10.0, "10s"),
        (20.0, "20s"),
        (30.0, "30s"),
        (40.0, "40s"),
    ]
    assert [label for _, label in time_ticks(0.35)] == ["0", "100ms", "200ms", "300ms"]
    assert [label for _, label in time_ticks(150)] == ["0", "30s", "1m", "1m30s", "2m", "2m30s"]


@pytest.mark.parametrize("end", [1e-6, 0.003, 0.7, 2, 42, 599, 3601, 86400 * 366])
def test_time_ticks_stay_few_and_inside_the_axis(end: float) -> None:
    ticks = time_ticks(end)
    assert 2 <= len(ticks) <= 7
    assert ticks[0] == (0.0, "0")
    assert all(0 <= t <= end * (1 + 1e-9) for t, _ in ticks)
    assert len({label for _, label in ticks}) == len(ticks)


def test_order_ticks_name_events_by_their_number() -> None:
    assert order_ticks(3) == [(0.0, "#1"), (1.0, "#2"), (2.0, "#3")]
    labels = [label for _, label in order_ticks(34)]
    assert labels == ["#1", "#10", "#20", "#30"]
    assert len(order_ticks(10_453)) <= 7
