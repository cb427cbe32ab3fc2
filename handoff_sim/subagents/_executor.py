"""The handoff executor: wraps the primary executor and governs sub-agent calls.

It intercepts only sub-agent tool names; every other call goes to the primary
executor, which never learns the sub-agent names.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field

from handoff_sim._context import ENVIRONMENT, FRAME, Frame, RunEnvironment
from handoff_sim._errors._run import HandoffDeniedError, UnknownToolError
from handoff_sim._safe import describe_error, error_message
from handoff_sim._sessions import Session, try_save
from handoff_sim._tools import ToolExecutor, ToolOutput, call_executor, format_tool_error
from handoff_sim.errors import (
    BudgetExceededError,
    HandoffTimeoutError,
    RunError,
    ScriptError,
    SessionStoreError,
)
from handoff_sim.events import (
    AttemptOutcome,
    HandoffAttemptEndEvent,
    HandoffAttemptStartEvent,
    HandoffEndEvent,
    HandoffReason,
    HandoffStartEvent,
    HandoffStatus,
)
from handoff_sim.messages import ToolCall
from handoff_sim.subagents._deadline import within_deadline
from handoff_sim.subagents._definition import SubAgent
from handoff_sim.subagents._input import unwrap_output
from handoff_sim.subagents._policy import FailureAction, HandoffPolicy, SessionMode
from handoff_sim.subagents._retry import retry_error

__all__ = ["HandoffExecutor", "safe_message"]

# Errors that must never be retried or turned into a tool result: a nested denial
# (policy says abort), a misused fake model (the test itself is wrong), a used-up
# run budget (it ends the whole run) and a session store that cannot save.
_NEVER_RETRIED = (HandoffDeniedError, ScriptError, BudgetExceededError, SessionStoreError)

_NEVER_REFUSES = SubAgent.refuse


def safe_message(exc: BaseException) -> str:
    """The error text events carry: the message, or the type name; never raises."""
    return error_message(exc)


@dataclass(slots=True)
class _Handoff:
    """One handoff in flight: what its start event said, so its end can say it too."""

    env: RunEnvironment
    frame: Frame
    call: ToolCall
    mount: SubAgent
    depth: int
    session: Session
    start_us: int
    handoff_id: str = ""
    subagent: str = ""
    session_mode: str = ""
    ended: bool = False
    attempts_made: int = 0
    open_attempt: tuple[int, int] | None = None  # (attempt, started_us) until its end

    def start(self) -> None:
        """Emit ``handoff_start``, at ``start_us``, with the fields the end says again."""
        call, env = self.call, self.env
        env.publish(
            HandoffStartEvent(
                *env.stamp(self.frame, self.depth, self.start_us),
                handoff_id=self.handoff_id,
                parent_handoff_id=self.frame.handoff_id,
                call_id=call.id,
                tool=call.name,
                subagent=self.subagent,
                session_mode=self.session_mode,
                session_id=self.session.id,
            )
        )

    def end(
        self,
        status: HandoffStatus,
        reason: HandoffReason | None,
        attempts: int,
        *,
        output: str | None = None,
        error: str | None = None,
    ) -> None:
        """Emit the one ``handoff_end`` of this handoff; later calls do nothing."""
        if self.ended:
            return
        self.ended = True
        env, call = self.env, self.call
        now = env.now_us()
        env.publish(
            HandoffEndEvent(
                *env.stamp(self.frame, self.depth, now),
                handoff_id=self.handoff_id,
                parent_handoff_id=self.frame.handoff_id,
                call_id=call.id,
                tool=call.name,
                subagent=self.subagent,
                session_mode=self.session_mode,
                session_id=self.session.id,
                status=status,
                reason=reason,
                attempts=attempts,
                duration_ms=(now - self.start_us) / 1000,
                output=output,
                error=error,
            )
        )


@dataclass(slots=True)
class _Attempts:
    """How the attempts of one handoff went."""

    made: int = 0
    last_error: BaseException | None = None
    reason: HandoffReason = "error"


_NO_FAILURE = _Attempts()  # never returned: the loop makes at least one attempt


@dataclass(eq=False)
class _ReusedSessions:
    """REUSE_SESSION state: one session per key, one lock per key and event loop."""

    sessions: dict[tuple[str, str | None], Session] = field(default_factory=dict)
    locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[object, asyncio.Lock]] = field(
        default_factory=weakref.WeakKeyDictionary
    )

    def lock(self, key: object) -> asyncio.Lock:
        per_loop = self.locks.setdefault(asyncio.get_running_loop(), {})
        found = per_loop.get(key)
        if found is None:
            found = per_loop[key] = asyncio.Lock()
        return found


def _with_notes(error: BaseException) -> str:
    """The error's message, then its notes (what a swallowed cancellation came to), if any."""
    notes = getattr(error, "__notes__", None)
    said = [n for n in notes if isinstance(n, str)] if isinstance(notes, list) else []
    return "; ".join([safe_message(error), *said])


class HandoffExecutor:
    """Routes sub-agent tool calls through the policy; the rest to the primary executor."""

    def __init__(
        self,
        mounts: Mapping[str, SubAgent],
        primary: ToolExecutor,
        policy: HandoffPolicy,
    ) -> None:
        self.mounts = dict(mounts)
        self.primary = primary
        self.policy = policy
        self._reused = _ReusedSessions()

    async def execute(self, call: ToolCall) -> str | ToolOutput:
        """Run one call: a handoff if it names a sub-agent tool, else the primary executor."""
        mount = self.mounts.get(call.name)
        if mount is None:
            return await call_executor(self.primary, call)
        env, frame = ENVIRONMENT.get(), FRAME.get()
        if env is None or frame is None:
            raise RunError(
                "a handoff can only run inside an agent run (use Agent.arun or simulate)"
            )
        env.charge_handoff(frame, call.name)  # the run budget: refused once it is used up
        handoff = _Handoff(
            env,
            frame,
            call,
            mount,
            frame.depth + 1,
            self._session(mount, call, frame, env),
            env.now_us(),
            f"handoff:{call.id}",
            mount.subagent_for(call),
            mount.session_mode._value_,  # .value, without the enum's descriptor
        )
        handoff.start()
        try:
            return await self._govern(handoff)
        except asyncio.CancelledError:
            self._close_attempt(handoff, "cancelled", None)
            handoff.end("cancelled", None, handoff.attempts_made)
            raise
        except Exception as exc:
            self._close_attempt(handoff, "error", safe_message(exc))
            handoff.end("failed", "error", handoff.attempts_made, error=safe_message(exc))
            raise
        except BaseException as exc:  # KeyboardInterrupt, SystemExit, GeneratorExit: the user's
            self._close_attempt(handoff, "cancelled", None)
            handoff.end("cancelled", None, handoff.attempts_made, error=describe_error(exc))
            raise

    def _session(
        self, mount: SubAgent, call: ToolCall, frame: Frame, env: RunEnvironment
    ) -> Session:
        parent = frame.session
        root = parent.root_session_id or parent.id
        if mount.session_mode is SessionMode.REUSE_SESSION:
            scope = parent.id if mount.session_scope == "parent_session" else None
            key = (mount.tool_name, scope)
            found = self._reused.sessions.get(key)
            if found is None:
                found = self._reused.sessions[key] = Session(
                    id=env.new_id("session"),
                    parent_session_id=parent.id,
                    root_session_id=root,
                    agent=mount.agent.name,
                )
            return found
        return mount.new_session(call, parent, env.new_id("session"))

    async def _govern(self, h: _Handoff) -> str | ToolOutput:
        # SubAgent's own refuse() never refuses: only one a style overrides is asked.
        refuses = type(h.mount).refuse is not _NEVER_REFUSES
        refusal = await h.mount.refuse(h.call, h.depth) if refuses else None
        if refusal is not None:
            h.end("denied", refusal.reason, 0, error=refusal.message)
            return ToolOutput(refusal.message, is_error=True)
        policy = self.policy
        if not policy.enabled:
            outcome = await self._attempt_all(h, h.call, 1, governed=False)
            return outcome if isinstance(outcome, str) else self._report_error(h, outcome)
        denial = policy.deny_reason(h.call.name, h.depth)
        if denial is not None:
            return await self._on_denied(h, denial[0], denial[1])
        filtered = h.call
        if policy.input_filter is not None:
            try:
                filtered = policy.input_filter(h.call) or h.call
            except Exception as exc:
                h.end("failed", "error", 0, error=f"input filter failed: {safe_message(exc)}")
                return ToolOutput(format_tool_error(exc), is_error=True)
        outcome = await self._attempt_all(h, filtered, policy.attempts, governed=True)
        if isinstance(outcome, str):
            return outcome
        if policy.on_error is FailureAction.FALLBACK_TO_PRIMARY:
            assert outcome.last_error is not None
            return await self._fallback(
                h, "failed", outcome.reason, safe_message(outcome.last_error), outcome.made
            )
        return self._report_error(h, outcome)

    def _report_error(self, h: _Handoff, outcome: _Attempts) -> ToolOutput:
        error = outcome.last_error
        assert error is not None
        h.end("failed", outcome.reason, outcome.made, error=safe_message(error))
        return ToolOutput(h.mount.failure(h.call, error), is_error=True)

    async def _attempt_all(
        self, h: _Handoff, call: ToolCall, attempts: int, *, governed: bool
    ) -> str | _Attempts:
        """Run up to ``attempts`` attempts; the envelope on success, else what went wrong."""
        failed = _NO_FAILURE  # made only when an attempt fails
        env = h.env
        for attempt in range(1, attempts + 1):
            h.attempts_made = attempt
            started = env.now_us()
            env.publish(
                HandoffAttemptStartEvent(
                    *env.stamp(h.frame, h.depth, started),
                    handoff_id=h.handoff_id,
                    call_id=h.call.id,
                    tool=h.call.name,
                    attempt=attempt,
                )
            )
            h.open_attempt = (attempt, started)
            try:
                timeout = self.policy.timeout  # none: no coroutine of its own around the child
                output, steps = await (
                    self._run_child(h, call)
                    if timeout is None
                    else self._attempt_within(h, call, timeout)
                )
                result = h.mount.result(h.call, output, steps)
            except HandoffTimeoutError as exc:
                self._attempt_end(h, attempt, started, "timeout", _with_notes(exc))
                failed = _Attempts(attempt, exc, "timeout")
                continue
            except _NEVER_RETRIED as exc:
                self._attempt_end(h, attempt, started, "error", safe_message(exc))
                fatal = not isinstance(exc, HandoffDeniedError) or not governed
                if fatal or self.policy.on_error is FailureAction.FAIL:
                    h.end("failed", "error", attempt, error=safe_message(exc))
                    raise
                return _Attempts(attempt, exc, "error")
            except Exception as exc:
                self._attempt_end(h, attempt, started, "error", safe_message(exc))
                final = self._unretried(h, exc) if attempt < attempts else exc
                if final is not None:
                    return _Attempts(attempt, final, "error")
                failed = _Attempts(attempt, exc, "error")
                continue
            self._attempt_end(h, attempt, started, "ok", None)
            h.end("completed", None, attempt, output=output)
            return result
        return failed

    def _unretried(self, h: _Handoff, error: Exception) -> Exception | None:
        """None when a retry may fix ``error``; else the error the handoff ends with."""
        return retry_error(self.policy.retry_on, h.mount.retryable, error)

    def _close_attempt(self, h: _Handoff, outcome: AttemptOutcome, error: str | None) -> None:
        """End the attempt still open when an error leaves the attempt loop early."""
        if h.open_attempt is not None:
            attempt, started = h.open_attempt
            self._attempt_end(h, attempt, started, outcome, error)

    def _attempt_end(
        self, h: _Handoff, attempt: int, started: int, outcome: AttemptOutcome, error: str | None
    ) -> None:
        h.open_attempt = None
        env = h.env
        now = env.now_us()
        env.publish(
            HandoffAttemptEndEvent(
                *env.stamp(h.frame, h.depth, now),
                handoff_id=h.handoff_id,
                call_id=h.call.id,
                tool=h.call.name,
                attempt=attempt,
                outcome=outcome,
                duration_ms=(now - started) / 1000,
                error=error,
            )
        )

    async def _attempt_within(
        self, h: _Handoff, call: ToolCall, timeout: float
    ) -> tuple[str | None, int]:
        """One attempt, bounded by the per-attempt timeout whatever the child does with its
        cancellation (see ``_deadline``)."""
        return await within_deadline(self._run_child(h, call), h.call.name, timeout)

    async def _run_child(self, h: _Handoff, call: ToolCall) -> tuple[str | None, int]:
        agent, text = h.mount.target(call)
        session = h.session
        if h.mount.session_mode is SessionMode.NEW_SESSION:
            session.messages.clear()
            return await agent.run_as_subagent(
                text, session, depth=h.depth, handoff_id=h.handoff_id
            )
        async with self._reused.lock((h.mount.tool_name, session.id)):
            kept = len(session.messages)
            try:
                return await agent.run_as_subagent(
                    text, session, depth=h.depth, handoff_id=h.handoff_id
                )
            except BaseException as exc:
                # A failed attempt leaves no orphan messages, in memory nor in the store
                # (the child's run saved them when it ended): roll back, then save again.
                if len(session.messages) > kept:
                    del session.messages[kept:]
                    problem = try_save(agent.session_store, session, agent.name)
                    if problem is not None:
                        exc.add_note(f"rolled-back session not saved: {describe_error(problem)}")
                raise

    async def _on_denied(
        self, h: _Handoff, reason: HandoffReason, message: str
    ) -> str | ToolOutput:
        action = self.policy.on_denied
        if action is FailureAction.FALLBACK_TO_PRIMARY:
            return await self._fallback(h, "was denied", reason, message, 0)
        h.end("denied", reason, 0, error=message)
        if action is FailureAction.REPORT_TO_MODEL:
            return ToolOutput(h.mount.denied(h.call, message), is_error=True)
        raise HandoffDeniedError(
            h.call.name,
            reason,
            message,
            depth=h.depth,
            from_defaults=self.policy.defaults_behind(reason),
        )

    async def _fallback(
        self, h: _Handoff, why: str, reason: HandoffReason, message: str, attempts: int
    ) -> str | ToolOutput:
        """Hand the original, unfiltered call to the primary executor, or say why none serves it."""
        try:
            result = await call_executor(self.primary, h.call)
        except UnknownToolError as exc:
            text = (
                f"handoff unavailable: subagent tool {h.call.name} {why} ({message}) "
                f"and no primary tool executor serves it ({safe_message(exc)})"
            )
            h.end("unavailable", reason, attempts, output=text, error=message)
            return text
        except Exception as exc:
            h.end("failed", reason, attempts, error=safe_message(exc))
            return ToolOutput(format_tool_error(exc), is_error=True)
        content = result.content if isinstance(result, ToolOutput) else result
        h.end("fallback", reason, attempts, output=unwrap_output(content), error=message)
        return result
