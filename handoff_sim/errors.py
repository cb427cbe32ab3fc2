"""Every error handoff_sim and pytest_handoff define, grouped by who has to act.

Every error the packages raise on their own account derives from ``HandoffSimError``,
some also from the standard exception that says what kind of failure it is (in
parentheses). A name in brackets says where a class defined elsewhere is imported
from (``handoff_sim.`` left out, ``[handoff_sim]`` for the package itself); the others
import from this module.

HandoffSimError
├── ConfigurationError (ValueError)        raised at construction: fix the code
│   ├── InvalidNameError                    blank or malformed agent/tool name
│   ├── DuplicateToolNameError              two tools answer to one name
│   ├── ReservedPrefixError                 plain tool named ``subagent_*``
│   ├── PolicyError                         invalid HandoffPolicy value
│   │   └── RetryClassifierError            a retry classification (retry_on, retryable)
│   │                                       cannot be imported, or raised or gave no bool
│   ├── InputFilterError                    an input filter given by import path cannot be
│   │                                       imported, or raised or gave no ToolCall in a run
│   ├── AgentDefinitionError                [styles.sophi] an agent definition is wrong
│   ├── GovernanceError                     [adapters] governed() got what it cannot govern
│   └── UnknownRuntimeError                 [adapters] no framework runtime by that name
├── RunError                               raised out of a run: the run stopped
│   ├── BudgetExceededError                 the run budget (model calls, handoffs, nesting) ran out
│   ├── CaptureError                        [adapters] capture() could not record a run
│   ├── HandoffDeniedError                  policy denial under FailureAction.FAIL
│   │   └── HandoffDeniedInRunError (AgentsException)
│   │                                       [adapters.openai_agents] the same, out of Runner.run
│   ├── MaxStepsExceededError               the ReAct loop ran out of steps
│   ├── RealTimeDeadlineError               a ``clock: real`` scenario went over its real deadline
│   └── VirtualTimeError                    a simulated run cannot go on
│       ├── VirtualDeadlockError            every task blocked, no timer pending
│       └── VirtualDeadlineError            virtual time passed the simulation's deadline
├── ScriptError                            a fake or custom model misbehaved: fix the test
│   ├── ScriptExhaustedError                asked for more steps than scripted
│   ├── ScriptAssertionError (AssertionError)
│   │                                       a step's expectation on the request failed
│   ├── FunctionModelError                  a FunctionModel function gave no answer
│   ├── SchemaModelError                    [testing] no arguments can be made from a tool's schema
│   ├── UnconsumedStepsError (AssertionError)
│   │                                       assert_complete() found steps left
│   └── ModelResponseError (TypeError)      a model client returned a malformed response
├── SessionStoreError                      a session could not be saved, or a stored one read back
├── PatternTimeoutError                    a user's regular expression took too long on a text
├── HandoffTimeoutError (TimeoutError)     an attempt timed out; the model sees it
├── UnknownToolError (LookupError)         a tool executor does not serve a name
├── ResultNormalizationError (TypeError, ValueError)
│                                          [styles.flink] a result JSON cannot express
├── ScenarioError                          [scenarios] a scenario cannot be loaded or run
│   └── ScenarioFileError                   [scenarios] a malformed file: each problem at file:line
├── ScenarioNotApplicable                  [adapters] a framework cannot express the scenario
├── OtlpError (ValueError)                 OTLP trace data cannot be read as asked
│   └── OtlpFormatError                     ill-formed OTLP/JSON, with the field path
├── RecordingError                         a recording cannot be read or replayed as recorded
│   ├── RecordingFormatError (ValueError)   a recording's content cannot be replayed
│   ├── ReplayMismatchError (ScriptError)   a request matches no recorded step left
│   ├── ReplayExhaustedError (ScriptError)  an agent asked for more than its recording holds
│   ├── ToolReplayMismatchError (ScriptError)
│   │                                       no recorded answer left for a tool call
│   └── UnusedRecordingError (AssertionError)
│                                           recorded steps that no request used
├── MissingExtraError (ImportError)        [adapters] the optional extra is not installed
├── PluginLoadError                        [cli._plugins] a command plugin cannot be loaded
├── RecordedRunError                       [cli._trace_check] the error a recorded run ended with
├── ConformanceDrift                       [adapters._conformance] a framework run and the
│                                          documented differences disagree
├── InvariantViolationError (AssertionError)
│                                          [handoff_sim] a trace breaks the runtime's invariants
├── FuzzFailure (AssertionError)           [fuzzing] a generated case broke an invariant
├── HandoffAssertionError (AssertionError)
│                                          [pytest_handoff] an assertion helper failed
└── ScenarioFailed (AssertionError)        [pytest_handoff.collection] a scenario item failed

Outside the tree on purpose: a fake model raises these to imitate a model provider
failing, as a real client's own exception would, so the runtime treats them as it
treats any error of a user's code.

SimulatedModelError (RuntimeError)         [testing] a script's ``{"error": ...}`` step
└── AdversarialModelError                   [testing] an adversarial model's raising behaviour
    └── AdversarialTimeoutError (TimeoutError)
                                            [testing] a provider timeout, not a handoff timeout

Warnings, and exceptions that never leave the package:

SubAgentNotOfferedWarning (UserWarning)    [styles.flink] no object input: never offered
AgentDefinitionWarning (UserWarning)       [styles.sophi] a malformed definition file was skipped
JsonProblem (ValueError)                   [_safe] text is not JSON; callers say where
UnreadableFile                             [_files] a path that is no regular file or is too large;
                                           callers say which path
StopShrinking (BaseException)              [fuzzing._engine] the fuzzer's shrink budget is spent
AttemptAbandoned (BaseException)           [subagents._deadline] stops a sub-agent that ignored
                                           its attempt's cancellation
"""

from __future__ import annotations

__all__ = [
    "BudgetExceededError",
    "ConfigurationError",
    "DuplicateToolNameError",
    "FunctionModelError",
    "HandoffDeniedError",
    "HandoffSimError",
    "HandoffTimeoutError",
    "InputFilterError",
    "InvalidNameError",
    "MaxStepsExceededError",
    "ModelResponseError",
    "OtlpError",
    "OtlpFormatError",
    "PatternTimeoutError",
    "PolicyError",
    "RealTimeDeadlineError",
    "RecordingError",
    "RecordingFormatError",
    "ReplayExhaustedError",
    "ReplayMismatchError",
    "ReservedPrefixError",
    "RetryClassifierError",
    "RunError",
    "ScriptAssertionError",
    "ScriptError",
    "ScriptExhaustedError",
    "SessionStoreError",
    "ToolReplayMismatchError",
    "UnconsumedStepsError",
    "UnknownToolError",
    "UnusedRecordingError",
    "VirtualDeadlineError",
    "VirtualDeadlockError",
    "VirtualTimeError",
]


class HandoffSimError(Exception):
    """Base class of every error raised by handoff_sim."""


class ConfigurationError(HandoffSimError, ValueError):
    """An agent, tool, sub-agent or policy was built with invalid values."""


class InvalidNameError(ConfigurationError):
    """A required name is blank, or an explicit tool name is malformed."""


class DuplicateToolNameError(ConfigurationError):
    """Two tools (plain or sub-agent) of one agent resolve to the same name.

    ``subagent`` says whether a sub-agent tool is one of them; the message reads
    ``duplicate subagent tool name: <name>`` then, else ``duplicate tool name: <name>``.
    """

    def __init__(self, name: str, *, subagent: bool = True) -> None:
        kind = "subagent tool" if subagent else "tool"
        super().__init__(f"duplicate {kind} name: {name}")
        self.name = name
        self.subagent = subagent


class ReservedPrefixError(ConfigurationError):
    """A plain tool uses the ``subagent_`` prefix reserved for sub-agents."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"Tool name '{name}' must not start with the reserved prefix 'subagent_', "
            "which identifies sub-agent callables"
        )
        self.name = name


class PolicyError(ConfigurationError):
    """A HandoffPolicy field has an invalid value."""


class RetryClassifierError(PolicyError):
    """A retry classification (``HandoffPolicy.retry_on``, ``SubAgent.retryable``) is unusable.

    Raised when one given as ``package.module:function`` does not import or is not a plain
    callable, and during a run, as the handoff's error, when it raises or returns no bool.
    """


class InputFilterError(ConfigurationError):
    """An input filter given as ``package.module:function`` cannot be used.

    Raised when it does not import, is missing or not callable, and during a run when the
    filter raises or returns something other than a ``ToolCall`` or ``None``.
    """


class RunError(HandoffSimError):
    """A run stopped with an error the caller must handle."""


class BudgetExceededError(RunError):
    """A run used up its budget: model calls, handoffs, or agent runs nested in one another.

    ``resource`` is ``"model_calls"``, ``"handoffs"`` or ``"nesting"``; ``limit`` is the
    cap that was reached. It is never retried and never becomes a tool result.
    """

    def __init__(self, resource: str, limit: int, message: str) -> None:
        super().__init__(message)
        self.resource = resource
        self.limit = limit


class HandoffDeniedError(RunError):
    """A handoff was refused by policy and the policy says FAIL.

    ``reason`` is the code the trace records (``not_allowed``, ``denied_tool``,
    ``max_depth``), ``detail`` the text (``tool is in denied_tools``); the message is
    ``handoff denied for subagent tool <tool>: <detail>``. ``from_defaults`` names the
    policy fields left at their default that made the denial raise (``max_depth``,
    ``on_denied``); each gets a note saying how to change it.
    """

    def __init__(
        self,
        tool: str,
        reason: str,
        detail: str,
        *,
        depth: int | None = None,
        from_defaults: tuple[str, ...] = (),
    ) -> None:
        super().__init__(f"handoff denied for subagent tool {tool}: {detail}")
        self.tool = tool
        self.reason = reason
        self.detail = detail
        self.depth = depth
        self.from_defaults = from_defaults
        for field in from_defaults:
            note = _default_note(field, depth)
            if note is not None:
                self.add_note(note)


def _default_note(field: str, depth: int | None) -> str | None:
    """How to change the policy default ``field`` that made a denial raise."""
    if field == "max_depth":
        allows = (
            f"HandoffPolicy(max_depth={depth}) allows this depth"
            if depth is not None
            else "a larger max_depth allows deeper handoffs"
        )
        return (
            f"max_depth 1 is HandoffPolicy's default (it was not set): {allows}, "
            "max_depth=0 removes the limit"
        )
    if field == "on_denied":
        return (
            "on_denied=FAIL is HandoffPolicy's default (it was not set): "
            "on_denied=FailureAction.REPORT_TO_MODEL gives the model the denial as a failed "
            "tool result and the run goes on; FALLBACK_TO_PRIMARY sends the call to the "
            "primary tool executor"
        )
    return None


class MaxStepsExceededError(RunError):
    """An agent asked its model more than ``max_steps`` times in one run."""

    def __init__(self, agent: str, max_steps: int) -> None:
        super().__init__(f"agent {agent!r} exceeded max_steps={max_steps}")
        self.agent = agent
        self.max_steps = max_steps


class VirtualTimeError(RunError):
    """A simulated run cannot go on: it would hang, or it ran past its virtual deadline."""


class VirtualDeadlockError(VirtualTimeError):
    """Under simulation every task waits and no timer is pending: it would hang forever."""


class RealTimeDeadlineError(RunError):
    """A ``clock: real`` scenario ran past its real-time deadline.

    Raised however the run ended: cancelled at the deadline, still running after it
    (its work ignored the cancellation) or finished late (blocked the loop). It fails
    the scenario whatever ``expect.error`` says.
    """


class VirtualDeadlineError(VirtualTimeError):
    """Virtual time passed the simulation's deadline (a guard against endless runs)."""


class ScriptError(HandoffSimError):
    """A fake model was driven past or against its script, or a model client broke its contract."""


class ScriptExhaustedError(ScriptError):
    """The model was called more times than its script has steps."""

    def __init__(self, agent: str, step: int, length: int) -> None:
        super().__init__(
            f"script of agent {agent!r} exhausted: model call {step} requested, "
            f"but the script has {length} step(s)"
        )
        self.agent = agent
        self.step = step
        self.length = length


class ScriptAssertionError(ScriptError, AssertionError):
    """A script step's expectation about the request it received did not hold."""


class FunctionModelError(ScriptError):
    """A FunctionModel's function returned something that is not a model answer."""


class UnconsumedStepsError(ScriptError, AssertionError):
    """``assert_complete()`` found script steps that no model call consumed."""


class ModelResponseError(ScriptError, TypeError):
    """A model client's ``complete()`` returned something that is not a well-formed ModelResponse.

    Like every script error it is never retried and never shown to a parent model:
    the model client is wrong, so the test is.
    """

    def __init__(self, agent: str, step: int, problem: str) -> None:
        super().__init__(f"agent {agent!r}, model call {step}: malformed model response: {problem}")
        self.agent = agent
        self.step = step
        self.problem = problem


class PatternTimeoutError(HandoffSimError):
    """A user's regular expression took longer than its time budget on one text.

    Catastrophic backtracking (``^(a|a)+$`` on sixty ``a`` and a ``!``) would run for
    hours; the match is stopped instead, and the expectation it served fails. ``pattern``
    is the expression, ``length`` the characters of the text, ``seconds`` the budget.
    """

    def __init__(self, pattern: str, length: int, seconds: float, *, spent: bool = False) -> None:
        if spent:
            why = f"was not tried: the patterns of this check already took {seconds:g}s together"
        else:
            why = f"took longer than {seconds:g}s on a text of {length} characters"
        shown = repr(pattern) if len(pattern) <= 60 else repr(pattern[:57]) + "..."
        super().__init__(
            f"pattern {shown} {why} (it backtracks too much: avoid a repeat "
            "inside a repeat, such as (a+)+ or (a|a)*)"
        )
        self.pattern = pattern
        self.length = length
        self.seconds = seconds


class SessionStoreError(HandoffSimError):
    """A session could not be saved (the store failed), or a stored file is corrupt or foreign."""


class HandoffTimeoutError(HandoffSimError, TimeoutError):
    """One handoff attempt ran past the policy's per-attempt timeout."""

    def __init__(self, tool: str, timeout: float) -> None:
        ms = timeout * 1000
        shown = int(ms) if ms == int(ms) else ms
        super().__init__(f"handoff timeout for subagent tool {tool} after {shown} ms")
        self.tool = tool
        self.timeout = timeout


class UnknownToolError(HandoffSimError, LookupError):
    """A tool executor was asked to run a tool name it does not serve."""

    def __init__(self, name: str, detail: str | None = None) -> None:
        super().__init__(detail or f"unknown tool: {name}")
        self.name = name


class OtlpError(HandoffSimError, ValueError):
    """OTLP trace data cannot be read as asked (see :class:`OtlpFormatError`)."""


class OtlpFormatError(OtlpError):
    """Ill-formed OTLP/JSON: ``source`` (the file), ``where`` (a field path) and ``what``."""

    def __init__(self, source: str, where: str, what: str) -> None:
        super().__init__(f"{source}: {where}: {what}" if where else f"{source}: {what}")
        self.source = source
        self.where = where
        self.what = what


class RecordingError(HandoffSimError):
    """A recording cannot be read, or the code replayed against it asks what it never recorded."""


class RecordingFormatError(RecordingError, ValueError):
    """A recording's content cannot be replayed: ``where`` says which part, ``problem`` why."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


def _listed(lines: list[str]) -> str:
    return "".join(f"\n  - {line}" for line in lines)


class ReplayMismatchError(RecordingError, ScriptError):
    """A model request matches none of its agent's recorded steps left.

    ``step`` is the agent's model call (from 1); ``nearest`` the recorded step with the
    fewest ``differences`` from it (None when none is left to compare).
    """

    def __init__(
        self, agent: str, step: int, differences: list[str], nearest: int | None, match: str
    ) -> None:
        if nearest is None:
            detail = "no recorded step left to compare it with"
        else:
            detail = f"the nearest, recorded step {nearest}, differs:" + _listed(differences)
        super().__init__(
            f"replay of agent {agent!r}: model call {step} matches no recorded step left "
            f"(match: {match}); {detail}"
        )
        self.agent = agent
        self.step = step
        self.differences = differences
        self.nearest = nearest


class ReplayExhaustedError(RecordingError, ScriptError):
    """An agent made more model calls than its recording holds answers for."""

    def __init__(self, agent: str, step: int, steps: int) -> None:
        super().__init__(
            f"replay of agent {agent!r} exhausted: model call {step} requested, but the "
            f"recording holds {steps} step(s) for it and none is left"
        )
        self.agent = agent
        self.step = step
        self.steps = steps


class ToolReplayMismatchError(RecordingError, ScriptError):
    """A call of a recorded tool has no recorded answer left with its arguments."""

    def __init__(self, tool: str, call: int, arguments: str, nearest: str | None) -> None:
        found = (
            f"the nearest recorded arguments left: {nearest}"
            if nearest is not None
            else "no recorded answer is left"
        )
        super().__init__(
            f"replay of tool {tool!r}: call {call} with arguments {arguments} has no recorded "
            f"answer left; {found}"
        )
        self.tool = tool
        self.call = call
        self.arguments = arguments
        self.nearest = nearest


class UnusedRecordingError(RecordingError, AssertionError):
    """Recorded steps of an agent that no request used: the code no longer makes those calls."""

    def __init__(self, agent: str, unused_steps: list[int], steps: int) -> None:
        shown = ", ".join(map(str, unused_steps[:10])) + (", ..." if len(unused_steps) > 10 else "")
        super().__init__(
            f"recording of agent {agent!r} has {len(unused_steps)} unused step(s) of {steps}: "
            f"step(s) {shown} (the run no longer makes these calls: re-record it, or remove "
            "the steps)"
        )
        self.agent = agent
        self.unused_steps = unused_steps
        self.steps = steps
