"""Parse durations given as seconds or as strings like ``250ms``, ``2s``, ``1m``.

A duration someone gives the runtime (a latency, a timeout) is at most
:data:`~handoff_sim._limits.MAX_SECONDS`; a duration someone *expects* (an elapsed
time) only has to be a finite number. Numbers too large for a float, ``nan`` and
``inf`` are refused with a message, never an ``OverflowError``.
"""

from __future__ import annotations

import math
import re

from handoff_sim._limits import MAX_SECONDS

__all__ = ["DURATION_PATTERN", "UNITS", "parse_duration", "shown"]

UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_SPACE = r"[\t\n\v\f\r ]*"
DURATION_PATTERN = rf"^{_SPACE}([0-9]+(?:\.[0-9]+)?|\.[0-9]+){_SPACE}(us|ms|s|m|h)?{_SPACE}$"
"""A duration string: a number and an optional unit (ASCII only; the JSON Schema uses it too)."""
_PATTERN = re.compile(DURATION_PATTERN)
_FORMS = "expected seconds or a number with a unit (us, ms, s, m, h), like '250ms'"


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` for a message, cut short: a 400-digit number is not worth 400 characters."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"<an integer of ~{round(value.bit_length() * math.log10(2))} digits>"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _seconds(value: object) -> float:
    """``value`` in seconds, possibly not finite; ValueError for anything not a duration."""
    if isinstance(value, bool):
        raise ValueError(f"invalid duration {shown(value)}: {_FORMS}")
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:
            return math.inf
    if isinstance(value, str):
        match = _PATTERN.match(value)
        if match is None:
            raise ValueError(f"invalid duration {shown(value)}: {_FORMS}")
        return float(match.group(1)) * UNITS[match.group(2) or "s"]
    raise ValueError(f"invalid duration {shown(value)}: {_FORMS}")


def parse_duration(value: object, *, maximum: float | None = MAX_SECONDS) -> float:
    """Seconds for ``value``; ValueError naming the accepted forms or the bound.

    ``maximum=None`` only asks for a finite number (for expected durations).
    """
    seconds = _seconds(value)
    if math.isnan(seconds) or seconds < 0:
        raise ValueError(f"invalid duration {shown(value)}: must be a finite number >= 0")
    if maximum is not None and seconds > maximum:
        raise ValueError(
            f"invalid duration {shown(value)}: must be at most {maximum:.0f} seconds "
            f"({maximum / 86400:.0f} days)"
        )
    if math.isinf(seconds):
        raise ValueError(f"invalid duration {shown(value)}: too large (must be finite)")
    return seconds
