"""What never reaches a recording: API keys, authorization headers, the user's own patterns.

Redaction applies to what is written (texts, arguments, previews, tool results);
fingerprints are taken from the request before it, so a redacted file still replays.
The user's patterns are matched in bounded time, as every user pattern is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import regex

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._limits import MAX_PATTERN_SECONDS
from handoff_sim._patterns import compile_user_pattern
from handoff_sim.errors import PatternTimeoutError

__all__ = [
    "DEFAULT_HEADERS",
    "MASK",
    "PATH_MASK",
    "Redaction",
    "Scrubber",
    "machine_paths",
    "without_machine_paths",
]

MASK = "[REDACTED]"
"""What a redacted secret is replaced by."""

DEFAULT_HEADERS: tuple[str, ...] = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "cookie",
    "set-cookie",
)
"""Header names whose values are always redacted (compared without case)."""

_KEY = r"(?:api[_-]?key|access[_-]?token|auth[_-]?token|secret[_-]?key|password)"
_BUILT_IN: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("API keys", re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{12,}"), MASK),
    ("bearer tokens", re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=\-]{6,}"), rf"\1 {MASK}"),
    (
        "api_key= values",
        re.compile(rf"(?i)\b({_KEY}[\"']?\s*[=:]\s*[\"']?)(?!\[REDACTED\])[^\s\"'&,;}}]{{4,}}"),
        rf"\1{MASK}",
    ),
)


def _header_rule(names: Iterable[str]) -> re.Pattern[str]:
    """``Name: value`` (a header line) and ``"name": "value"`` (a header in JSON text)."""
    alternatives = "|".join(sorted({re.escape(n.lower()) for n in names}, key=len, reverse=True))
    return re.compile(
        rf"(?im)((?:^|[\s{{,])[\"']?(?:{alternatives})[\"']?\s*[:=]\s*[\"']?)"
        r"(?![\s\"']|\[REDACTED\])[^\r\n\"']+"
    )


@dataclass(frozen=True)
class Redaction:
    """Redaction rules: the defaults (API keys, bearer tokens, ``api_key=``, secret headers),
    the user's ``patterns`` (regular expressions; what matches is replaced) and ``headers``
    (more header names whose values are redacted). ``defaults=False`` drops the defaults."""

    patterns: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    defaults: bool = True
    _compiled: tuple[regex.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __init__(
        self, patterns: Iterable[str] = (), headers: Iterable[str] = (), *, defaults: bool = True
    ) -> None:
        given = tuple(_strings("patterns", patterns))
        compiled = []
        for index, pattern in enumerate(given, 1):
            try:
                compiled.append(compile_user_pattern(pattern))
            except ValueError as exc:
                raise ConfigurationError(f"Redaction pattern {index}: {exc}") from None
        object.__setattr__(self, "patterns", given)
        object.__setattr__(self, "headers", tuple(_strings("headers", headers)))
        object.__setattr__(self, "defaults", bool(defaults))
        object.__setattr__(self, "_compiled", tuple(compiled))

    def header_names(self) -> frozenset[str]:
        """Every header name whose value is redacted, lower case."""
        base = DEFAULT_HEADERS if self.defaults else ()
        return frozenset(n.lower() for n in (*base, *self.headers))

    def scrubber(self) -> Scrubber:
        """A fresh counter of what these rules redact (one per file written)."""
        return Scrubber(self)


def _strings(what: str, values: Iterable[str]) -> list[str]:
    if isinstance(values, str):
        raise ConfigurationError(f"Redaction {what} must be a list of strings, not one string")
    out = list(values)
    for index, value in enumerate(out, 1):
        if not isinstance(value, str) or not value:
            raise ConfigurationError(f"Redaction {what}[{index}] must be a non-empty string")
    return out


class Scrubber:
    """Applies one :class:`Redaction` to texts and counts what each rule replaced."""

    def __init__(self, rules: Redaction) -> None:
        self.rules = rules
        self._rules = rules
        self.counts: Counter[str] = Counter()
        names = rules.header_names()
        self._headers = _header_rule(names) if names else None
        self._directories = machine_paths()

    def text(self, value: str) -> str:
        """``value`` with every secret the rules find replaced by :data:`MASK`."""
        if not value:
            return value
        if self._rules.defaults:
            for label, pattern, replacement in _BUILT_IN:
                value = self._apply(label, pattern.subn, replacement, value)
        if self._headers is not None:
            value = self._apply("authorization headers", self._headers.subn, rf"\1{MASK}", value)
        for index, compiled in enumerate(self._rules._compiled, 1):
            value = self._user(index, compiled, value)
        return without_machine_paths(value, self.counts, self._directories)

    def _apply(
        self, label: str, subn: Callable[[str, str], tuple[str, int]], repl: str, value: str
    ) -> str:
        replaced, count = subn(repl, value)
        if count:
            self.counts[label] += count
        return replaced

    def _user(self, index: int, compiled: regex.Pattern[str], value: str) -> str:
        try:
            replaced, count = compiled.subn(MASK, value, timeout=MAX_PATTERN_SECONDS)
        except TimeoutError:
            raise PatternTimeoutError(compiled.pattern, len(value), MAX_PATTERN_SECONDS) from None
        if count:
            self.counts[f"pattern {index}"] += count
        return replaced

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """``headers`` with the values of secret header names masked, the rest scrubbed."""
        names = self._rules.header_names()
        out: dict[str, str] = {}
        for name, value in headers.items():
            if name.lower() in names:
                self.counts["authorization headers"] += 1
                out[name] = MASK
            else:
                out[name] = self.text(value)
        return out

    def report(self) -> list[str]:
        """What was redacted, for ``recorded.redacted``: rule names and counts, no secret."""
        return [
            f"{label} ({count} {'match' if count == 1 else 'matches'})"
            for label, count in sorted(self.counts.items())
        ]


_MACHINE_PATHS = (
    re.compile(r"(?<![\w.:/~\\-])/(?:[\w.@+-]+/)+[\w.@+-]*"),
    re.compile(r"(?<![\w])[A-Za-z]:[\\/](?:[^\s\"'<>|\\/]+[\\/])*[^\s\"'<>|]*"),
    re.compile(r"(?<![\w.])~[\\/][^\s\"']*"),
)
PATH_MASK = "<path>"
"""What a machine path (an absolute path, the home or temporary directory) becomes."""


def machine_paths() -> list[str]:
    """This machine's home, temporary and working directories (each at least two levels)."""
    import os
    import tempfile
    from pathlib import Path

    found = []
    for getter in (Path.home, tempfile.gettempdir, os.getcwd):
        try:
            found.append(str(getter()))
        except (OSError, RuntimeError, KeyError):
            continue
    return sorted({p for p in found if len(p) > 1}, key=len, reverse=True)


def without_machine_paths(
    value: str, counts: Counter[str], directories: list[str] | None = None
) -> str:
    """``value`` with absolute paths and this machine's directories replaced by ``<path>``."""
    for pattern in _MACHINE_PATHS:  # whole paths first, then what is left of the directories
        value, count = pattern.subn(PATH_MASK, value)
        if count:
            counts["machine paths"] += count
    for directory in machine_paths() if directories is None else directories:
        if directory in value:
            counts["machine paths"] += value.count(directory)
            value = value.replace(directory, PATH_MASK)
    return value
