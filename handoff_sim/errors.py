"""Every error handoff_sim and pytest_handoff define, in families grouped by who has to act.

Every error the packages raise on their own account derives from ``HandoffSimError``
through exactly one family, a base class named for what went wrong and so for who must
act; some also derive from the standard exception that says what kind of failure it is
(in parentheses), so ``except ValueError`` and the like keep working. The families:

* ``ConfigurationError`` — raised at construction: fix the code that builds agents;
* ``SetupError`` — the environment lacks something: install the extra, fix the plugin;
* ``RunError`` — raised out of a run: the run stopped;
* ``ToolCallError`` — one tool call (a handoff is one) failed; the run goes on and the
  calling model sees the failure;
* ``ScriptError`` — a fake model (a script, a function, a recording) was driven past or
  against what it holds, or a model client broke its contract: fix the test;
* ``ScenarioError`` — a scenario file cannot be loaded, or run as written;
* ``DataError`` — data read or written cannot be used: a session store, OTLP traces;
* ``CheckFailedError`` — a check found the code under test wrong.

A name in brackets says where a class is imported from when it is not this module
(``handoff_sim.`` left out, ``[handoff_sim]`` for the package itself; a private module for
one that is not public: a user catches its family or its standard base instead); the
others import from this module. Each class has one public home.

HandoffSimError
├── ConfigurationError (ValueError)        [handoff_sim] raised at construction: fix the code
│   ├── InvalidNameError                    [_errors._configuration] a blank or malformed name
│   ├── DuplicateToolNameError              [handoff_sim] two tools answer to one name
│   ├── ReservedPrefixError                 [handoff_sim] plain tool named ``subagent_*``
│   ├── PolicyError                         invalid HandoffPolicy value
│   │   └── RetryClassifierError            a retry classification (retry_on, retryable)
│   │                                       cannot be imported, or raised or gave no bool
│   ├── InputFilterError                    an input filter given by import path cannot be
│   │                                       imported, or raised or gave no ToolCall in a run
│   ├── AgentDefinitionError                [styles.sophi] an agent definition is wrong
│   ├── GovernanceError                     [adapters] governed() got what it cannot govern
│   ├── GateSpecError                       [handoff_sim] a gate file or a --gate option is wrong
│   ├── TrajectorySpecError                 [testing] a trajectory expectation is written wrong
│   ├── SyncInvokeError                     [adapters.langgraph] a graph's sync entry point
│   │                                       (invoke, stream) was called inside a simulation
│   └── UnknownRuntimeError                 [adapters._registry] no framework runtime by that name
├── SetupError                             the environment lacks something the call needs
│   ├── MissingExtraError (ImportError)     [adapters] the optional extra is not installed
│   └── PluginLoadError                     [cli._plugins] a command plugin cannot be loaded
├── RunError                               raised out of a run: the run stopped
│   ├── BudgetExceededError                 the run budget (model calls, handoffs, nesting) ran out
│   ├── CaptureError                        [adapters] capture() could not record a run
│   ├── HandoffDeniedError                  [handoff_sim] policy denial under FailureAction.FAIL
│   │   └── HandoffDeniedInRunError (AgentsException)
│   │                                       [adapters.openai_agents] the same, out of Runner.run
│   ├── MaxStepsExceededError               [handoff_sim] the ReAct loop ran out of steps
│   ├── RealTimeDeadlineError               a ``clock: real`` scenario went over its real deadline
│   ├── RecordedRunError                    [cli._trace_check] the error a recorded run ended with
│   └── VirtualTimeError                    a simulated run cannot go on
│       ├── VirtualDeadlockError            every task blocked, no timer pending
│       └── VirtualDeadlineError            virtual time passed the simulation's deadline
├── ToolCallError                          one tool call failed; the model sees it
│   ├── HandoffTimeoutError (TimeoutError)  an attempt timed out
│   ├── UnknownToolError (LookupError)      [handoff_sim] a tool executor does not serve a name
│   └── ResultNormalizationError (TypeError, ValueError)
│                                           [styles.flink._normalize] a result JSON cannot express
├── ScriptError                            a fake or custom model misbehaved: fix the test
│   ├── ScriptExhaustedError                asked for more steps than scripted
│   ├── ScriptAssertionError (AssertionError)
│   │                                       a step's expectation on the request failed
│   ├── FunctionModelError                  a FunctionModel function gave no answer
│   ├── SchemaModelError                    [testing] no arguments can be made from a tool's schema
│   ├── NoFakeAnswerError                   [testing] no answer of a data-driven fake fits a call
│   ├── UnconsumedStepsError (AssertionError)
│   │                                       assert_complete() found steps left
│   ├── ModelResponseError (TypeError)      a model client returned a malformed response
│   └── RecordingError                      a recording cannot be read or replayed as recorded
│       ├── RecordingFormatError (ValueError)
│       │                                   a recording's content cannot be replayed
│       ├── ReplayMismatchError (ScriptError)
│       │                                   a request matches no recorded step left
│       ├── ReplayExhaustedError (ScriptError)
│       │                                   an agent asked for more than its recording holds
│       ├── ToolReplayMismatchError (ScriptError)
│       │                                   no recorded answer left for a tool call
│       ├── UnusedRecordingError (AssertionError)
│       │                                   recorded steps that no request used
│       ├── MissingRecordingError (FileNotFoundError)
│       │                                   [pytest_handoff] a test's recording does not exist
│       │                                   and the record mode does not record it
│       └── RealModelBlockedError (ScriptError)
│                                           [pytest_handoff] --handoff-block-models: an agent the
│                                           recording has no lane for called its model
├── ScenarioError                          a scenario cannot be loaded or run as written
│   ├── ScenarioFileError                   [scenarios] a malformed file: each problem at file:line
│   └── ScenarioNotApplicable               [adapters] a framework cannot express the scenario
├── DataError                              data read or written cannot be used
│   ├── SessionStoreError                   a session could not be saved, or a stored one read back
│   └── OtlpError (ValueError)              OTLP trace data cannot be read as asked
│       └── OtlpFormatError                 ill-formed OTLP/JSON, with the field path
└── CheckFailedError                       a check found the code under test wrong
    ├── PatternTimeoutError                 a user's regular expression took too long on a text
    ├── ConformanceDrift                    [adapters._conformance] a framework run and the
    │                                       documented differences disagree
    ├── InvariantViolationError (AssertionError)
    │                                       [handoff_sim] a trace breaks the runtime's invariants
    ├── FuzzFailure (AssertionError)        [fuzzing] a generated case broke an invariant
    ├── GateFailedError (AssertionError)    [handoff_sim] a trace failed a gate (a threshold)
    ├── HandoffAssertionError (AssertionError)
    │                                       [pytest_handoff] an assertion helper failed
    └── ScenarioFailed (AssertionError)     [pytest_handoff._collection] a scenario item failed

Outside the tree on purpose: a fake model raises these to imitate a model provider
failing, as a real client's own exception would, so the runtime treats them as it
treats any error of a user's code.

SimulatedModelError (RuntimeError)         [testing] a script's ``{"error": ...}`` step
├── AdversarialModelError                   [testing] an adversarial model's raising behaviour
│   └── AdversarialTimeoutError (TimeoutError)
│                                           [testing] a provider timeout, not a handoff timeout
└── SimulatedRateLimitError                 [testing] a data-driven fake's rate-limit fault (a 429)

Warnings, and exceptions that never leave the package:

SubAgentNotOfferedWarning (UserWarning)    [styles.flink] no object input: never offered
AgentDefinitionWarning (UserWarning)       [styles.sophi] a malformed definition file was skipped
JsonProblem (ValueError)                   [_safe] text is not JSON; callers say where
MarkerProblem (ValueError)                 [pytest_handoff._recording_paths] a misused
                                           handoff_recording marker: the test fails saying how
ScenarioRefused                            [pytest_handoff._loading] a scenario file refused at
                                           its item's setup; the item reports its problem lines
UnreadableFile                             [_files] a path that is no regular file or is too large;
                                           callers say which path
StopShrinking (BaseException)              [fuzzing._engine] the fuzzer's shrink budget is spent
AttemptAbandoned (BaseException)           [subagents._deadline] stops a sub-agent that ignored
                                           its attempt's cancellation
"""

import typing as _typing

from handoff_sim._errors._configuration import (
    InputFilterError,
    PolicyError,
    RetryClassifierError,
)
from handoff_sim._errors._families import (
    CheckFailedError,
    DataError,
    HandoffSimError,
    RunError,
    ScenarioError,
    ScriptError,
    SetupError,
    ToolCallError,
)
from handoff_sim._errors._recording import (
    RecordingError,
    RecordingFormatError,
    ReplayExhaustedError,
    ReplayMismatchError,
    ToolReplayMismatchError,
    UnusedRecordingError,
)
from handoff_sim._errors._run import (
    BudgetExceededError,
    HandoffTimeoutError,
    OtlpError,
    OtlpFormatError,
    PatternTimeoutError,
    RealTimeDeadlineError,
    SessionStoreError,
    VirtualDeadlineError,
    VirtualDeadlockError,
    VirtualTimeError,
)
from handoff_sim._errors._script import (
    FunctionModelError,
    ModelResponseError,
    ScriptAssertionError,
    ScriptExhaustedError,
    UnconsumedStepsError,
)
from handoff_sim._moved import moved_names as _moved_names

__all__ = [
    "BudgetExceededError",
    "CheckFailedError",
    "DataError",
    "FunctionModelError",
    "HandoffSimError",
    "HandoffTimeoutError",
    "InputFilterError",
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
    "RetryClassifierError",
    "RunError",
    "ScenarioError",
    "ScriptAssertionError",
    "ScriptError",
    "ScriptExhaustedError",
    "SessionStoreError",
    "SetupError",
    "ToolCallError",
    "ToolReplayMismatchError",
    "UnconsumedStepsError",
    "UnusedRecordingError",
    "VirtualDeadlineError",
    "VirtualDeadlockError",
    "VirtualTimeError",
]


if not _typing.TYPE_CHECKING:
    __getattr__ = _moved_names(
        __name__,
        {
            "ConfigurationError": "handoff_sim",
            "DuplicateToolNameError": "handoff_sim",
            "HandoffDeniedError": "handoff_sim",
            "MaxStepsExceededError": "handoff_sim",
            "ReservedPrefixError": "handoff_sim",
            "UnknownToolError": "handoff_sim",
        },
    )
