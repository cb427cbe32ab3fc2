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

from handoff_sim.errors import (
    ConfigurationError,
    ReplayExhaustedError,
    ReplayMismatchError,
    ScriptAssertionError,
    UnusedRecordingError,
)
from handoff_sim.messages import ModelRequest, ModelResponse
from handoff_sim.testing._fingerprint import (
    Fingerprint,
    differences,
    fingerprint,
    request_key,
)
from handoff_sim.testing._replay_lane import ReplayLane, ReplayLedger
from handoff_sim.testing._steps import ScriptStep, SimulatedModelError, check_request, parse_step

__all__ = ["MATCH_MODES", "ReplayModel"]

MatchMode = Literal["fingerprint", "tools", "order"]
MATCH_MODES: tuple[MatchMode, ...] = ("fingerprint", "tools", "order")


def _fingerprints(steps: Sequence[ScriptStep], agent: str) -> list[Fingerprint | None]:
    return [
        None
        if step.request is None
        else Fingerprint.from_mapping(step.request, f"agent {agent!r}, recorded step {number}")
        for number, step in enumerate(steps, 1)
    ]


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
        if match not in MATCH_MODES:
            raise ConfigurationError(
                f"ReplayModel match must be one of {', '.join(MATCH_MODES)}, got {match!r}"
            )
        where = f"agent {agent!r}, recorded step"
        self.steps = tuple(parse_step(s, i, where=f"{where} {i}") for i, s in enumerate(steps, 1))
        self.agent = agent
        self.match: MatchMode = match
        self.fingerprints = _fingerprints(self.steps, agent)
        self._keys = [None if p is None else p.key() for p in self.fingerprints]
        self._tools = [None if p is None else p.tools for p in self.fingerprints]
        recorded = next((f.model for f in self.fingerprints if f is not None), None)
        self.model_name = model_name or recorded or "replay"
        self.places = tuple(places or ())
        self.lane = ReplayLane(len(self.steps), ledger)
        self.requests: list[ModelRequest] = []
        self.failures: list[ScriptAssertionError] = []

    @property
    def remaining(self) -> int:
        """Recorded steps no request has used yet."""
        return len(self.lane.unused())

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The recorded answer to ``request`` (after its latency), or its recorded error."""
        self.requests.append(request)
        call = len(self.requests)
        index = self._choose(request, call)
        lane = self.lane
        lane.serve(index)
        step = self.steps[index]
        try:
            check_request(step, request, self.agent, index + 1)
        except ScriptAssertionError as exc:
            self.failures.append(exc)
            raise
        try:
            if step.latency:
                await asyncio.sleep(step.latency)
            if step.cancelled:  # recorded cut off: it never answers
                await asyncio.get_running_loop().create_future()
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
            found = lane.pick(lambda _: True)
            if found is None:
                raise ReplayExhaustedError(self.agent, call, len(self.steps), at=self._at(-1))
            return found
        wanted, keys = self._wanted(request)
        first = lane.next_fresh()  # the common case: the next step is the one asked for
        if first is not None and not lane.given_back and keys[first] in (wanted, None):
            return first
        found = lane.pick(lambda i: keys[i] == wanted, self._loose)
        if found is not None:
            return found
        left = lane.left()
        if not left:
            raise ReplayExhaustedError(self.agent, call, len(self.steps), at=self._at(-1))
        nearest, lines = self._nearest(fingerprint(request), left)
        at = None if nearest is None else self._at(nearest - 1)
        raise ReplayMismatchError(self.agent, call, lines, nearest, self.match, at=at)

    def _wanted(self, request: ModelRequest) -> tuple[object, Sequence[object]]:
        """What the request is compared on in this mode, and each step's recorded value."""
        if self.match == "tools":
            return request.tool_names, self._tools
        return request_key(request), self._keys

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
