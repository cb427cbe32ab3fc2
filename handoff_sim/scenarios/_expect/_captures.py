"""Captured values: ``{capture: name}`` names a value once, ``{ref: name}`` reuses it.

At load, every reference must come after its capture in the order expectations are
checked (see ``_places``), a name is captured once, and a turn's ``session: {ref: ...}``
names a session captured by an earlier turn's ``session_id``. While running, a
:class:`TurnSessions` gives each turn the session it asked for.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from handoff_sim.scenarios._errors import ScenarioError
from handoff_sim.scenarios._expect._places import (
    GROUPS,
    Finding,
    Position,
    RelPath,
    expect_positions,
    turn_positions,
)
from handoff_sim.scenarios._schema import (
    ExpectSpec,
    ScenarioSpec,
    SessionRef,
    TurnSpec,
    is_matcher,
    matcher_nodes,
)

__all__ = ["TurnSessions", "capture_findings", "matrix_capture_findings", "turn_capture"]

_ORDER = "each turn, then expect.output, handoffs, trace, sessions"


def _dotted(path: RelPath) -> str:
    return ".".join(str(p) for p in path)


def turn_capture(turn: TurnSpec) -> str | None:
    """The name a turn's ``expect.session_id: {capture: name}`` gives its session, if any."""
    expected = turn.expect.session_id if turn.expect is not None else None
    name = expected.get("capture") if isinstance(expected, dict) and is_matcher(expected) else None
    return name if isinstance(name, str) else None


class TurnSessions:
    """Which session each turn runs in: the previous one, a new one, or a captured one."""

    def __init__(self) -> None:
        self.previous: str | None = None
        self.captured: dict[str, str] = {}

    def choose(self, turn: TurnSpec) -> str | None:
        """The session id to run ``turn`` in (None: a new session)."""
        if isinstance(turn.session, SessionRef):
            name = turn.session.ref
            if name not in self.captured:  # the loader refuses it; a spec built by hand may not
                raise ScenarioError(f"session {{ref: {name}}}: no earlier turn captured '{name}'")
            return self.captured[name]
        return None if turn.session == "new" else self.previous

    def ran(self, turn: TurnSpec, session_id: str) -> None:
        """Record the session ``turn`` ran in (and its capture, if it names one)."""
        self.previous = session_id
        name = turn_capture(turn)
        if name is not None:
            self.captured[name] = session_id


def _uses(positions: list[Position]) -> Iterator[tuple[RelPath, str, str]]:
    """(path, 'capture' or 'ref', name) for every capture and reference, in order."""
    for at, value, where in positions:
        if not isinstance(value, dict | list):
            continue  # a plain value holds no matcher
        place = "value" if where == "event" else where
        for path, node in matcher_nodes(value, place):
            for kind in ("capture", "ref"):
                if isinstance(node.get(kind), str):
                    yield (*at, *path, kind), kind, node[kind]


def _effective(
    spec: ScenarioSpec, variant: int | None, base: dict[str, list[Position]]
) -> dict[str, list[Position]]:
    """The patterns a scenario (or one matrix variant, with its overrides) checks, by part."""
    if variant is None or spec.matrix is None:
        return base
    entry = spec.matrix[variant]
    expect = entry.expect if entry.expect is not None else ExpectSpec()
    removed = set(getattr(entry, "unset", ()))
    own = expect_positions(expect, ("matrix", variant, "expect"))
    return {
        g: own[g] if g in expect.model_fields_set else [] if f"expect.{g}" in removed else base[g]
        for g in GROUPS
    }


def matrix_capture_findings(spec: ScenarioSpec) -> list[Finding]:
    """Capture findings of every variant: those all variants share once, the others
    naming the variant they concern."""
    variants = spec.matrix or []
    turns, base = turn_positions(spec), expect_positions(spec.expect, ("expect",))
    each = [capture_findings(spec, index, turns, base) for index in range(len(variants))]
    shared = set.intersection(*(set(found) for found in each)) if each else set()
    merged = [f for f in each[0] if f in shared] if each else []
    for index, found in enumerate(each):
        label = f" (matrix variant '{variants[index].id}')"
        for at, message in found:
            if (at, message) not in shared:
                own = at[:2] == ("matrix", index)
                merged.append((at, message if own else message + label))
    return merged


def capture_findings(
    spec: ScenarioSpec,
    variant: int | None,
    turns: list[Position] | None = None,
    base: dict[str, list[Position]] | None = None,
) -> list[Finding]:
    """Misused captures in the scenario, or in one of its matrix variants: a name captured
    twice, a reference before (or without) its capture. ``turns`` and ``base``: the
    positions of the turns and of ``spec.expect``, when the caller has them already."""
    turns = turns if turns is not None else turn_positions(spec)
    base = base if base is not None else expect_positions(spec.expect, ("expect",))
    groups = _effective(spec, variant, base)
    sequential = list(_uses([*turns, *groups["output"], *groups["handoffs"], *groups["trace"]]))
    in_sessions = list(_uses(groups["sessions"]))
    asks = any(isinstance(t.session, SessionRef) for t in spec.turns())
    if not sequential and not in_sessions and not asks:
        return []  # nothing captured, nothing referred to
    all_captures: dict[str, RelPath] = {}
    for path, kind, name in [*sequential, *in_sessions]:
        if kind == "capture":
            all_captures.setdefault(name, path)
    scope: dict[str, RelPath] = {}
    found: list[Finding] = []
    found += _turn_findings(spec, all_captures)
    for path, kind, name in sequential:
        found += _use(path, kind, name, scope, all_captures)
    before_sessions = dict(scope)
    for path, kind, name in in_sessions:
        if kind == "ref" and name not in before_sessions and name in all_captures:
            found.append(
                (
                    path,
                    f"'{name}' is captured in expect.sessions: sessions are matched in any "
                    "order, so a reference there can only name a value captured before them",
                )
            )
            continue
        found += _use(path, kind, name, scope, all_captures)
    return found


def _use(
    path: RelPath, kind: str, name: str, scope: dict[str, RelPath], everywhere: dict[str, RelPath]
) -> list[Finding]:
    if kind == "capture":
        if name in scope:
            return [(path, f"'{name}' is already captured at {_dotted(scope[name])}")]
        scope[name] = path
        return []
    if name in scope:
        return []
    if name in everywhere:
        return [
            (
                path,
                f"'{name}' is referred to before it is captured (at "
                f"{_dotted(everywhere[name])}); expectations are checked in this order: {_ORDER}",
            )
        ]
    return [(path, _unknown(name, everywhere))]


def _unknown(name: str, captured: dict[str, RelPath]) -> str:
    if not captured:
        return (
            f"nothing is captured as '{name}': write {{capture: {name}}} where the value "
            "first appears"
        )
    close = difflib.get_close_matches(name, list(captured), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"nothing is captured as '{name}'{hint}; captured: {', '.join(captured)}"


def _turn_findings(spec: ScenarioSpec, everywhere: dict[str, RelPath]) -> list[Finding]:
    """A turn's ``session: {ref: name}`` needs an earlier turn's ``session_id`` capture."""
    found: list[Finding] = []
    earlier: dict[str, int] = {}
    for index, turn in enumerate(spec.turns()):
        if isinstance(turn.session, SessionRef) and turn.session.ref not in earlier:
            name = turn.session.ref
            where = f"; it is captured at {_dotted(everywhere[name])}" if name in everywhere else ""
            found.append(
                (
                    ("run", index, "session", "ref"),
                    f"'{name}' must be captured by an earlier turn's session_id "
                    f"(expect: {{session_id: {{capture: {name}}}}}): this turn needs it "
                    f"before it runs{where}",
                )
            )
        captured = turn_capture(turn)
        if captured is not None:
            earlier.setdefault(captured, index)
    return found
