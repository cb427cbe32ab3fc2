"""Parse durations given as seconds or as strings like ``250ms``, ``2s``, ``1m`` (Y3)."""

from __future__ import annotations

import math
import re

__all__ = ["parse_duration"]

_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PATTERN = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*(us|ms|s|m|h)?\s*$")


def parse_duration(value: object) -> float:
    """Return seconds for ``value``; raise ValueError naming the accepted forms."""
    if isinstance(value, bool):
        raise ValueError(f"invalid duration {value!r}: expected seconds or a string like '250ms'")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        match = _PATTERN.match(value)
        if match is None:
            raise ValueError(
                f"invalid duration {value!r}: expected seconds or a number with a unit "
                "(us, ms, s, m, h), like '250ms'"
            )
        seconds = float(match.group(1)) * _UNITS[match.group(2) or "s"]
    else:
        raise ValueError(f"invalid duration {value!r}: expected seconds or a string like '250ms'")
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"invalid duration {value!r}: must be a finite number >= 0")
    return seconds
