"""Readable durations (``250ms``, ``30s``, ``1m30s``) and the ticks of a timeline axis."""

from __future__ import annotations

import math

__all__ = ["format_duration", "order_ticks", "time_ticks"]

_MINUTE = 60.0
_HOUR = 3600.0
_DAY = 86400.0

# Tick steps in seconds: 1-2-5 below a second, then the steps a clock face suggests.
_STEPS: tuple[float, ...] = (
    *(m * 1e-6 for m in (1, 2, 5, 10, 20, 50, 100, 200, 500)),
    *(m * 1e-3 for m in (1, 2, 5, 10, 20, 50, 100, 200, 250, 500)),
    1.0,
    2.0,
    5.0,
    10.0,
    15.0,
    30.0,
    *(m * _MINUTE for m in (1, 2, 5, 10, 15, 30)),
    *(h * _HOUR for h in (1, 2, 3, 6, 12)),
    *(d * _DAY for d in (1, 2, 7, 14, 30, 60, 90, 180, 365)),
)


def _number(value: float, digits: int = 3) -> str:
    """``value`` with at most ``digits`` decimals and no trailing zeros: 1.5, 30, 0.25."""
    text = f"{round(value, digits):.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def format_duration(seconds: float) -> str:
    """A duration as a person reads it: ``0ms``, ``500us``, ``250ms``, ``1.5s``, ``1m30s``.

    Below a minute one unit with up to three decimals; from a minute on, whole units
    from largest to smallest (seconds keep their decimals), leaving out zero parts.
    """
    if not math.isfinite(seconds) or seconds < 0:  # never produced (nor imported): as is
        return str(seconds)
    if seconds == 0:
        return "0ms"
    if seconds < 1e-3:
        return f"{_number(seconds * 1e6)}us"
    if seconds < 1:
        return f"{_number(seconds * 1e3)}ms"
    if seconds < _MINUTE:
        return f"{_number(seconds)}s"
    return _compound(round(seconds, 3))


def _compound(seconds: float) -> str:
    parts: list[str] = []
    rest = seconds
    for size, unit in ((_DAY, "d"), (_HOUR, "h"), (_MINUTE, "m")):
        count = int(rest // size)
        if count:
            parts.append(f"{count}{unit}")
            rest -= count * size
    if rest > 1e-9:
        parts.append(f"{_number(rest)}s")
    return "".join(parts)


def time_ticks(end: float, most: int = 6) -> list[tuple[float, str]]:
    """Ticks from 0 to ``end`` seconds on a round step, at most ``most`` + 1 of them."""
    if end <= 0:
        return [(0.0, "0")]
    step = next((s for s in _STEPS if end / s <= most), _STEPS[-1])
    count = int(end / step + 1e-9)
    return [(round(i * step, 9), format_duration(i * step) if i else "0") for i in range(count + 1)]


def order_ticks(count: int, most: int = 6) -> list[tuple[float, str]]:
    """Ticks for an axis of ``count`` events in order: ``#1``, ``#10``, ``#20`` ..."""
    if count <= 0:
        return [(0.0, "#1")]
    step = 1
    for candidate in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000):
        step = candidate
        if count / candidate <= most:
            break
    else:
        step = max(1, count // most)
    numbers = sorted({1, *range(step, count + 1, step)})
    return [(float(n - 1), f"#{n}") for n in numbers]
