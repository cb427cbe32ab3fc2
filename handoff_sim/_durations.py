"""Parse durations given as seconds or as strings like ``250ms``, ``2s``, ``1m``.

A duration is at most :data:`~handoff_sim._limits.MAX_SECONDS` (a virtual year).
Strings are read exactly (as decimals), so the bound holds to the digit: ``8784h``
is a year and passes, ``8784.001h`` does not. Numbers too large for a float, ``nan``
and ``inf`` are refused with a message, never an ``OverflowError``.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from handoff_sim._limits import MAX_SECONDS

__all__ = [
    "DURATION_PATTERN",
    "SPACE",
    "UNITS",
    "Written",
    "checked_seconds",
    "parse_duration",
    "shown",
    "written",
]

UNITS: dict[str, Decimal] = {
    "us": Decimal("0.000001"),
    "ms": Decimal("0.001"),
    "s": Decimal(1),
    "m": Decimal(60),
    "h": Decimal(3600),
}
"""Seconds per unit, exactly."""

SPACE = r"[\t\n\v\f\r ]*"
"""Whitespace around a duration: ASCII only, written out so that JSON Schema reads it alike."""
DURATION_PATTERN = rf"^{SPACE}([0-9]+(?:\.[0-9]+)?|\.[0-9]+){SPACE}(us|ms|s|m|h)?{SPACE}$"
"""A duration string: a number and an optional unit (ASCII only)."""
_PATTERN = re.compile(DURATION_PATTERN)
_FORMS = "expected seconds or a number with a unit (us, ms, s, m, h), like '250ms'"


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` for a message, cut short: a 400-digit number is not worth 400 characters."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"<an integer of ~{round(value.bit_length() * math.log10(2))} digits>"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _from_text(text: str) -> Decimal:
    """The seconds a duration string says, exactly; ValueError if it is none."""
    match = _PATTERN.match(text)
    if match is None:
        raise ValueError(f"invalid duration {shown(text)}: {_FORMS}")
    return Decimal(match.group(1)) * UNITS[match.group(2) or "s"]


def parse_duration(value: object, *, maximum: float | None = MAX_SECONDS) -> float:
    """Seconds for ``value``, a number or a string like ``250ms``; ValueError naming the
    accepted forms or the bound.

    ``maximum=None`` only asks for a finite number (to read values checked before).
    """
    if isinstance(value, str):
        return _bounded(_from_text(value), value, maximum)
    return checked_seconds(value, maximum=maximum)


def checked_seconds(value: object, *, maximum: float | None = MAX_SECONDS) -> float:
    """``value``, a number of seconds, as a float once it is within bounds; reads no text.

    What a value already read from a file (a float) goes through when it is handed on.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"invalid duration {shown(value)}: {_FORMS}")
    return _bounded(Decimal(value), value, maximum)


def _bounded(exact: Decimal, value: object, maximum: float | None) -> float:
    """``exact`` as a float; ValueError naming ``value`` if negative, not finite or too large."""
    if exact.is_nan() or exact < 0:
        raise ValueError(f"invalid duration {shown(value)}: must be a finite number >= 0")
    if maximum is not None and exact > Decimal(maximum):
        raise ValueError(
            f"invalid duration {shown(value)}: must be at most {maximum:.0f} seconds "
            f"({maximum / 86400:.0f} days)"
        )
    seconds = float(exact)
    if math.isinf(seconds):
        raise ValueError(f"invalid duration {shown(value)}: too large (must be finite)")
    return seconds


class Written(str):
    """A duration as a scenario file writes it (``11s``): shown as is, never quoted."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def written(seconds: float) -> Written:
    """``seconds`` in the unit that reads best, in a form :func:`parse_duration` reads back:
    ``250ms`` below a second, ``11s`` below two minutes, ``5m`` below two hours, then ``h``."""
    for unit, size, below in (("ms", 0.001, 1), ("s", 1, 120), ("m", 60, 7200)):
        if seconds < below:
            return Written(f"{round(seconds / size, 6):g}{unit}")
    return Written(f"{round(seconds / 3600, 6):g}h")
