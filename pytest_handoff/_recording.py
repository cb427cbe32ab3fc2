"""What the ``handoff_recording`` fixture hands out: a test bound to its recording.

``with handoff_recording.use(agent): ...`` records the agent tree's real run or
replays the recording into it, as the record mode says; the file is one per test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from handoff_sim import RunResult
    from handoff_sim.messages import ModelRequest, ModelResponse
    from pytest_handoff._record_modes import Mode

__all__ = ["BlockedModel", "HandoffRecording"]


class BlockedModel:
    """Stands in for an agent's real model during a blocked replay: any call is an error.

    Each call is also noted in ``hits``: a framework that turns a failing sub-agent into
    a tool result cannot hide the call, the replay's end raises for it.
    """

    model_name = "blocked"

    def __init__(self, agent: str | None, shown: str, hits: list[str]) -> None:
        self.agent = agent
        self.shown = shown
        self.hits = hits

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Refuse the call, naming the agent (the one it was swapped in for)."""
        from pytest_handoff._recording_errors import RealModelBlockedError

        agent = self.agent or request.agent
        self.hits.append(agent)
        raise RealModelBlockedError(agent, self.shown)


@contextmanager
def blocking_real_models(root: object, shown: str, hits: list[str]) -> Iterator[None]:
    """Every agent of ``root``'s tree runs on a :class:`BlockedModel` until the block ends.

    Entered before the replay's own swap, which stacks on it: the agents the recording
    has a lane for replay; every other one (``"*"``: the unnamed ones too) is blocked.
    """
    from handoff_sim.testing import override_models

    with override_models(root, {}) as tree:
        names: list[str] = list(tree.names)
    blocked: dict[str, Any] = {name: BlockedModel(name, shown, hits) for name in names}
    blocked["*"] = BlockedModel(None, shown, hits)
    with override_models(root, blocked):
        yield


class HandoffRecording:
    """A test's recording: ``.path``, ``.mode``, ``.exists``, ``.match``, and ``.use(agent)``.

    ``.records`` says whether ``.use`` records (a real run that writes ``.path``) or
    replays; ``.written`` whether this test wrote the file.
    """

    def __init__(
        self,
        path: Path,
        *,
        mode: Mode,
        match: str | None = None,
        block_models: bool = False,
        shown: str | None = None,
    ) -> None:
        self.path = path
        self.mode: Mode = mode
        self.match = match
        self.block_models = block_models
        self.shown = shown or str(path)
        self.rerecord = False  # set when new_episodes re-runs a test whose replay diverged
        self.replayed = False
        self.written = False
        self._recorded: bool | None = None  # what the last ``use`` did

    @property
    def exists(self) -> bool:
        """The recording file is there."""
        return self.path.is_file()

    @property
    def records(self) -> bool:
        """``.use`` records (and writes the file) rather than replays; after a ``use``,
        what that one did (a file ``once`` just wrote does not turn it into a replay)."""
        if self.rerecord:
            return True
        if self._recorded is not None:
            return self._recorded
        return self._will_record()

    def _will_record(self) -> bool:
        if self.mode == "all":
            return True
        return self.mode in ("once", "new_episodes") and not self.exists

    def __repr__(self) -> str:
        action = "record" if self.records else "replay"
        return f"<HandoffRecording {self.shown} mode={self.mode} ({action})>"

    @contextmanager
    def use(self, agent: object, **options: Any) -> Iterator[Any]:
        """Record ``agent``'s tree into the file, or replay the file into it (by agent name).

        The block gets what ``handoff_sim.recording.record`` / ``replay`` give. ``options``
        go to that call. A replay of a missing file is a ``MissingRecordingError`` naming
        the file and the option that records it; nothing is written unless recording.
        Once a test recorded, another ``use`` is an error (it would overwrite the file).
        """
        if self.written:
            from handoff_sim import ConfigurationError

            raise ConfigurationError(
                f"handoff_recording.use: this test already recorded {self.shown}; a second "
                "block would overwrite it: make every run of the test inside one use block"
            )
        self._recorded = self.rerecord or self._will_record()
        if self._recorded:
            with self._recording(agent, options) as value:
                yield value
            return
        if not self.exists:
            from pytest_handoff._recording_errors import MissingRecordingError

            raise MissingRecordingError(self.shown, self.mode)
        with self._replaying(agent, options) as value:
            yield value

    def run(self, agent: object, user_input: str, **options: Any) -> RunResult:
        """Run a handoff-sim ``agent`` once under :meth:`use`: a real run (``agent.run``,
        real time) when recording, ``simulate`` (virtual time) when replaying.

        ``options`` (``session=``, ``observers=``...) go to that run; for a framework
        agent, run it yourself inside ``use``.
        """
        from handoff_sim import Agent, ConfigurationError, simulate

        if not isinstance(agent, Agent):
            raise ConfigurationError(
                f"handoff_recording.run takes a handoff-sim Agent, got {type(agent).__name__}; "
                "run a framework agent yourself inside `with handoff_recording.use(agent):`"
            )
        with self.use(agent):
            if self._recorded:
                return agent.run(user_input, **options)
            return simulate(agent, user_input, **options)

    @contextmanager
    def _recording(self, agent: object, options: dict[str, Any]) -> Iterator[Any]:
        from handoff_sim.recording import record

        with record(agent, self.path, **options) as value:
            yield value
        self.written = True

    @contextmanager
    def _replaying(self, agent: object, options: dict[str, Any]) -> Iterator[Any]:
        from handoff_sim.recording import replay
        from pytest_handoff._recording_errors import RealModelBlockedError

        if self.match is not None:
            options.setdefault("match", self.match)
        self.replayed = True
        hits: list[str] = []
        try:
            with ExitStack() as stack:
                if self.block_models:
                    stack.enter_context(blocking_real_models(agent, self.shown, hits))
                yield stack.enter_context(replay(agent, self.path, **options))
        except Exception as exc:
            if hits and not isinstance(exc, RealModelBlockedError):
                raise RealModelBlockedError(hits[0], self.shown) from exc
            raise
        if hits:  # refused, and the refusal swallowed on the way (a tool result, say)
            raise RealModelBlockedError(hits[0], self.shown)
