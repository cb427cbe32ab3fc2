"""``ReplayModel``: a model client that plays one agent's recorded steps back, in virtual time.

Each request gets a recorded step: in ``fingerprint`` mode the first one left whose request
fingerprint equals the request's (so parallel runs of one agent each get their own
answer), in ``tools`` mode the first whose offered tool names are the request's, in
``order`` mode the next one. A step without a recorded ``request`` (removed by hand, say)
answers the next request, whatever it asks, once no step before it is left.
The step waits its recorded latency (``asyncio.sleep``: virtual under a simulation), then
answers or raises its recorded error; a step recorded ``cancelled`` never answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.errors import (
    ReplayExhaustedError,
    ReplayMismatchError,
    ScriptAssertionError,
    UnusedRecordingError,
)
from handoff_sim.messages import ModelRequest, ModelResponse
from handoff_sim.testing._fingerprint import (
    Fingerprint,
    Key,
    KeyReader,
    differences,
    fingerprint,
    whole_text,
)
from handoff_sim.testing._never import never_answer
from handoff_sim.testing._replay_lane import ReplayLane, ReplayLedger
from handoff_sim.testing._steps import ScriptStep, SimulatedModelError, check_request, parse_step

__all__ = ["MATCH_MODES", "ReplayModel"]

MatchMode = Literal["fingerprint", "tools", "order"]
MATCH_MODES: tuple[MatchMode, ...] = ("fingerprint", "tools", "order")


def _always(_: int) -> bool:
    return True


def _check_match(match: object) -> MatchMode:
    if match not in MATCH_MODES:
        raise ConfigurationError(
            f"ReplayModel match must be one of {', '.join(MATCH_MODES)}, got {match!r}"
        )
    return match


def _fingerprints(steps: Sequence[ScriptStep], agent: str) -> tuple[Fingerprint | None, ...]:
    return tuple(
        None
        if step.request is None
        else Fingerprint.from_mapping(step.request, f"agent {agent!r}, recorded step {number}")
        for number, step in enumerate(steps, 1)
    )


class _Recorded:
    """One agent's recorded steps and what requests are compared with, worked out once and
    shared by every replay of them (:meth:`ReplayModel.again`)."""

    def __init__(self, steps: tuple[ScriptStep, ...], agent: str) -> None:
        self.steps = steps
        self.fingerprints = _fingerprints(steps, agent)
        self.keys: tuple[Key | None, ...] = tuple(
            None if p is None else p.key() for p in self.fingerprints
        )
        self.tools = tuple(None if p is None else p.tools for p in self.fingerprints)
        self.whole = tuple(None if p is None else whole_text(p) for p in self.fingerprints)
        self._indexes: dict[str, dict[object, tuple[int, ...]]] = {}

    def values(self, match: MatchMode) -> Sequence[object]:
        """What each step is compared on in this mode (``None``: a step without request)."""
        return self.tools if match == "tools" else self.keys

    def index(self, match: MatchMode) -> dict[object, tuple[int, ...]]:
        """The steps of each recorded value in this mode, in lane order."""
        index = self._indexes.get(match)
        if index is None:
            found: dict[object, list[int]] = {}
            for number, value in enumerate(self.values(match)):
                if value is not None:
                    found.setdefault(value, []).append(number)
            index = self._indexes[match] = {k: tuple(v) for k, v in found.items()}
        return index


class ReplayModel:
    """Plays one agent's lane of a recording: one recorded step per request, checked.

    ``steps`` are script steps (dicts as a recording writes them, with ``request``,
    ``latency``, ``usage``...). ``match`` is ``fingerprint``, ``tools`` or ``order``. Lanes
    sharing a ``ledger`` give back together what a cut-off run was served. ``places``
    name where each step is written (``file:line``), for messages. Every request is kept
    in :attr:`requests`; :meth:`assert_complete` proves every step was used.
    """

    def __init__(
        self,
        steps: Iterable[Any],
        *,
        agent: str,
        match: MatchMode = "fingerprint",
        ledger: ReplayLedger | None = None,
        model_name: str | None = None,
        places: Sequence[str] | None = None,
    ) -> None:
        _check_match(match)
        where = f"agent {agent!r}, recorded step"
        parsed = tuple(parse_step(s, i, where=f"{where} {i}") for i, s in enumerate(steps, 1))
        recorded = _Recorded(parsed, agent)
        named = next((f.model for f in recorded.fingerprints if f is not None), None)
        self._start(recorded, agent, match, ledger, model_name or named or "replay", places)

    def again(
        self, *, match: MatchMode | None = None, ledger: ReplayLedger | None = None
    ) -> ReplayModel:
        """A new replay of the same recorded steps, parsed once: its own lane, no request
        yet (``match`` defaults to this one's)."""
        model = ReplayModel.__new__(ReplayModel)
        mode = self.match if match is None else _check_match(match)
        model._start(self._recorded, self.agent, mode, ledger, self.model_name, self.places)
        return model

    def _start(
        self,
        recorded: _Recorded,
        agent: str,
        match: MatchMode,
        ledger: ReplayLedger | None,
        model_name: str,
        places: Sequence[str] | None,
    ) -> None:
        self._recorded = recorded
        self.steps = recorded.steps
        self.fingerprints = recorded.fingerprints
        self.agent = agent
        self.match: MatchMode = match
        self.model_name = model_name
        self.places = tuple(places or ())
        self.lane = ReplayLane(len(self.steps), ledger)
        self.requests: list[ModelRequest] = []
        self.failures: list[ScriptAssertionError] = []
        self._values = recorded.values(match)
        self._index = recorded.index(match) if match != "order" else {}
        self._seen: dict[object, int] = {}  # per value: how far its steps are all served
        self._reader = KeyReader()

    @property
    def remaining(self) -> int:
        """Recorded steps no request has used yet."""
        return len(self.lane.unused())

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The recorded answer to ``request`` (after its latency), or its recorded error."""
        requests = self.requests
        requests.append(request)
        index = self._choose(request, len(requests))
        lane = self.lane
        lane.serve(index)
        step = self.steps[index]
        if step.expect is not None or step.check is not None:
            try:
                check_request(step, request, self.agent, index + 1)
            except ScriptAssertionError as exc:
                self.failures.append(exc)
                raise
        if step.latency or step.cancelled:
            try:
                if step.latency:
                    await asyncio.sleep(step.latency)
                if step.cancelled:  # recorded cut off: it never answers
                    await never_answer()
            except BaseException:
                if step.cancelled:
                    lane.spend(index)
                lane.ledger.cut_off()
                raise
        if step.exception is not None:
            raise step.exception
        if step.error is not None:
            raise SimulatedModelError(step.error)
        assert step.response is not None
        return step.response

    def _choose(self, request: ModelRequest, call: int) -> int:
        lane = self.lane
        if self.match == "order":
            found = lane.next_fresh()  # a step never served comes first, whatever it records
            if found is None:
                found = lane.pick(_always)
        else:
            values = self._values
            first = lane.next_fresh()  # the common case: the next step is the one asked for
            if self.match == "tools":
                wanted: object = self._reader.tool_names(request)
                if first is not None and values[first] == wanted:
                    return first
            else:
                if first is not None:
                    recorded = self._recorded
                    key = recorded.keys[first]
                    if key is not None and self._reader.matches(
                        request, key, recorded.whole[first]
                    ):
                        return first
                wanted = self._reader.key(request)
            if first is not None and values[first] is None and lane.first_left() == first:
                return first  # a step without its request answers the next one
            found = lane.pick(lambda i: values[i] == wanted, self._loose, self._fresh(wanted))
        if found is not None:
            return found
        return self._refuse(request, call)

    def _fresh(self, wanted: object) -> int | None:
        """The first step never served whose recorded value is ``wanted`` (found through the
        lane's index, each value's served steps skipped for good)."""
        try:
            steps = self._index.get(wanted, ())
        except TypeError:  # a request field no recording can hold (unhashable)
            return None
        if not steps:
            return None
        seen, lane = self._seen.get(wanted, 0), self.lane
        while seen < len(steps) and not lane.is_fresh(steps[seen]):
            seen += 1
        self._seen[wanted] = seen
        return steps[seen] if seen < len(steps) else None

    def _refuse(self, request: ModelRequest, call: int) -> int:
        """No step left serves ``request``: the lane is exhausted, or nothing matches."""
        left = self.lane.left()
        if not left:
            raise ReplayExhaustedError(self.agent, call, len(self.steps), at=self._at(-1))
        nearest, lines = self._nearest(fingerprint(request), left)
        at = None if nearest is None else self._at(nearest - 1)
        raise ReplayMismatchError(self.agent, call, lines, nearest, self.match, at=at)

    def _at(self, index: int) -> str | None:
        """Where step ``index`` is written, if known (-1: the last step)."""
        places = self.places
        if not places or not -len(places) <= index < len(places):
            return None
        return places[index]

    def _loose(self, index: int) -> bool:
        """A step recorded without its request: it answers the next request, whatever it is."""
        return self.fingerprints[index] is None

    def _nearest(self, actual: Fingerprint, left: list[int]) -> tuple[int | None, list[str]]:
        """The step left with the fewest differences from ``actual`` (ties: the earliest)."""
        best: tuple[int, int, list[str]] | None = None
        for index in left:
            recorded = self.fingerprints[index]
            if recorded is None:
                continue
            lines = differences(recorded, actual)
            if self.match == "tools":
                lines = [line for line in lines if line.startswith("tool")]
            if best is None or len(lines) < best[0]:
                best = (len(lines), index, lines)
        if best is None:
            return None, []
        return best[1] + 1, best[2]

    def assert_complete(self) -> None:
        """Raise UnusedRecordingError if a recorded step was never used."""
        unused = self.lane.unused()
        if unused:
            numbers = [i + 1 for i in unused]
            raise UnusedRecordingError(self.agent, numbers, len(self.steps), at=self._at(unused[0]))
