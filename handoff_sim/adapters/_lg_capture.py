"""``capture()`` for LangGraph, through LangChain's own callbacks.

While a capture is active, langchain-core adds a callback handler of ours to every run
configured in its context (``register_configure_hook``, the documented hook tracers
use), so no ``config={"callbacks": ...}`` is needed and nothing is patched. The handler
runs inline, in the task that runs the LangChain code, so each callback sees the run's
context; it keeps the LangChain run tree (:mod:`._lg_tree`) and turns it into our
events (:mod:`._lg_events`).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, ClassVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult
from langchain_core.tracers.context import register_configure_hook
from langgraph.types import Command

from handoff_sim._safe import describe_error
from handoff_sim.adapters._capture import Capture, active_capture
from handoff_sim.adapters._lg_events import Events
from handoff_sim.adapters._lg_tree import Node, is_task

__all__ = ["LangGraphCapture"]

_HANDLER: ContextVar[BaseCallbackHandler | None] = ContextVar(
    "handoff_langgraph_handler", default=None
)
register_configure_hook(_HANDLER, inheritable=True)


class _Handler(BaseCallbackHandler):
    """Hands every callback to the capture of the task it runs in; never raises into LangChain.

    A problem of ours is kept on the capture, which raises it as a ``CaptureError`` when
    its block ends. The ``ignore_*`` flags are plain attributes, not the base class's
    properties, as LangChain reads one on every event: the events capture records (chains,
    chat models, LLM ends, tools, which LangChain files under "agent") are kept, the rest
    (retries, retrievers, custom events) are not dispatched to it at all.
    """

    run_inline = True
    raise_error = False
    ignore_llm = False
    ignore_chat_model = False
    ignore_chain = False
    ignore_agent = False  # tool callbacks are dispatched under this flag
    ignore_retry = True
    ignore_retriever = True
    ignore_custom_event = True

    def __init__(self, capture: LangGraphCapture) -> None:
        self.capture = capture

    def _failed(self, what: str, exc: Exception) -> None:
        self.capture.problems.append(f"capture could not record {what}: {describe_error(exc)}")

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kw: Any) -> None:
        try:
            self.capture.chain_start(run_id, kw)
        except Exception as exc:  # kept, reported when the capture ends
            self._failed("a chain start", exc)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kw: Any) -> None:
        try:
            self.capture.chain_end(run_id, outputs, None)
        except Exception as exc:
            self._failed("a chain end", exc)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kw: Any) -> None:
        try:
            self.capture.chain_end(run_id, None, error)
        except Exception as exc:
            self._failed("a chain error", exc)

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, **kw: Any
    ) -> None:
        try:
            self.capture.model_start(run_id, messages, kw)
        except Exception as exc:
            self._failed("a model call", exc)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kw: Any) -> None:
        try:
            self.capture.model_end(run_id, response, None)
        except Exception as exc:
            self._failed("a model answer", exc)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kw: Any) -> None:
        try:
            self.capture.model_end(run_id, None, error)
        except Exception as exc:
            self._failed("a model error", exc)

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: UUID, **kw: Any) -> None:
        try:
            name = kw.get("name") or (serialized or {}).get("name") or "tool"
            self.capture.tool_start(run_id, str(name), input_str, kw)
        except Exception as exc:
            self._failed("a tool start", exc)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kw: Any) -> None:
        try:
            self.capture.tool_end(run_id, output, None)
        except Exception as exc:
            self._failed("a tool end", exc)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kw: Any) -> None:
        try:
            self.capture.tool_end(run_id, None, error)
        except Exception as exc:
            self._failed("a tool error", exc)


class LangGraphCapture(Capture):
    """Records LangGraph runs as a handoff-sim trace (see :func:`capture`)."""

    framework: ClassVar[str] = "langgraph"

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.nodes: dict[int, Node] = {}
        """The open callback runs, by ``run_id.int`` (``UUID.__hash__`` is a Python call)."""
        self.events = Events(self)
        self._token: Any = None

    def install(self) -> None:
        self._token = _HANDLER.set(_Handler(self))

    def uninstall(self) -> None:
        if self._token is not None:
            _HANDLER.reset(self._token)
            self._token = None

    def _parent(self, parent_run_id: UUID | None) -> Node | None:
        return None if parent_run_id is None else self.nodes.get(parent_run_id.int)

    def _mine(self) -> bool:
        return active_capture() is self

    # -- chains: graphs, node tasks, anything else -----------------------------------------

    def chain_start(self, run_id: UUID, kw: dict[str, Any]) -> None:
        parent = self._parent(kw.get("parent_run_id"))
        if parent is None and not self._mine():
            return  # a run of another capture's block
        task = is_task(kw.get("tags"))
        self.nodes[run_id.int] = Node("chain", str(kw.get("name") or "chain"), parent, task=task)
        if task and parent is not None and parent.kind == "chain":
            parent.kind = "graph"  # only a graph runs node tasks: its first one tells
            self.events.graph_started(parent)

    def chain_end(self, run_id: UUID, outputs: Any, error: BaseException | None) -> None:
        node = self.nodes.pop(run_id.int, None)
        if node is None:
            return
        if node.kind == "graph":
            self.events.graph_ended(node, error)
        if node.closing:
            self.events.task_ended(node, outputs)
        if node.task and error is None and isinstance(outputs, Command):
            self.events.node_command(node, outputs)

    # -- model calls ------------------------------------------------------------------------

    def model_start(self, run_id: UUID, messages: Any, kw: dict[str, Any]) -> None:
        parent = self._parent(kw.get("parent_run_id"))
        if parent is None and not self._mine():
            return
        node = Node("model", str(kw.get("name") or "model"), parent)
        self.nodes[run_id.int] = node
        self.events.model_started(node, messages, kw.get("invocation_params") or {})

    def model_end(
        self, run_id: UUID, response: LLMResult | None, error: BaseException | None
    ) -> None:
        node = self.nodes.pop(run_id.int, None)
        if node is not None:
            self.events.model_ended(node, response, error)

    # -- tool calls -------------------------------------------------------------------------

    def tool_start(self, run_id: UUID, name: str, input_str: str, kw: dict[str, Any]) -> None:
        parent = self._parent(kw.get("parent_run_id"))
        if parent is None and not self._mine():
            return
        node = Node("tool", name, parent)
        self.nodes[run_id.int] = node
        call_id = kw.get("tool_call_id")
        self.events.tool_started(node, None if call_id is None else str(call_id), input_str)

    def tool_end(self, run_id: UUID, output: Any, error: BaseException | None) -> None:
        node = self.nodes.pop(run_id.int, None)
        if node is not None:
            self.events.tool_ended(node, output, error)
