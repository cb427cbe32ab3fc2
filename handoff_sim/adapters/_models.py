"""What every framework ``SimModel`` shares: drive one of our model clients, record the call.

The framework half translates the framework's request into a
:class:`~handoff_sim.ModelRequest` and our answer back into the framework's
response; this half calls the client, fills blank call ids (the frameworks require
ids), and records ``model_request``/``model_response`` when the call belongs to a
recorded run.
"""

from __future__ import annotations

from collections.abc import Sequence

from handoff_sim._context import current_frame
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._models import ModelClient
from handoff_sim.adapters._capture import current_model_mark, current_record
from handoff_sim.errors import ModelResponseError
from handoff_sim.messages import Message, ModelRequest, ModelResponse, ToolCall, ToolSpec

__all__ = ["ModelBridge", "last_user_text"]


def last_user_text(messages: Sequence[Message]) -> str | None:
    """The text of the last user message: what a run was asked."""
    for message in reversed(messages):
        if message.role == "user":
            return message.content or ""
    return None


class ModelBridge:
    """One of our fake models (``ScriptedModel``, ``FunctionModel``, ``AdversarialModel``...)."""

    def __init__(self, client: ModelClient, *, owner: str) -> None:
        if client is None or not callable(getattr(client, "complete", None)):
            raise ConfigurationError(
                f"{owner} needs a model client with async complete(request), such as "
                f"ScriptedModel or FunctionModel; got {client!r}"
            )
        self.client = client
        self.calls = 0

    @property
    def model_name(self) -> str:
        """The client's ``model_name`` (``scripted``, ``function``...) or its class name."""
        return str(getattr(self.client, "model_name", None) or type(self.client).__name__)

    def agent_name(self) -> str:
        """The agent the current call belongs to, as far as the runtime knows."""
        frame = current_frame()
        if frame is not None:
            return frame.agent
        return str(getattr(self.client, "name", None) or "agent")

    def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        parallel_tool_calls: bool,
    ) -> ModelRequest:
        """A request for the client, named after the current agent."""
        return ModelRequest(
            agent=self.agent_name(),
            model=self.model_name,
            messages=tuple(messages),
            tools=tuple(tools),
            parallel_tool_calls=parallel_tool_calls,
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Ask the client; record the call when it belongs to a recorded run."""
        self.calls += 1
        found = current_record()
        step = 0
        if found is not None:
            mark = current_model_mark()
            if mark is not None:
                mark.reported = True
            recorder, record = found
            step = recorder.model_request(
                record,
                messages=len(request.messages),
                tools=request.tool_names,
                input=last_user_text(request.messages),
            )
        response = await self.client.complete(request)
        if not isinstance(response, ModelResponse):
            raise ModelResponseError(
                request.agent,
                self.calls,
                f"expected ModelResponse, got {type(response).__name__}",
            )
        response = _fill_ids(response, self.calls)
        if found is not None:
            recorder, record = found
            recorder.model_response(record, step, response.text, response.tool_calls)
        return response


def _fill_ids(response: ModelResponse, call_number: int) -> ModelResponse:
    """Blank call ids become ``call_<n>_<i>``: both frameworks need an id on every call."""
    calls = response.tool_calls
    if all(isinstance(c.id, str) and c.id.strip() for c in calls):
        return response
    filled = tuple(
        c
        if isinstance(c.id, str) and c.id.strip()
        else ToolCall(f"call_{call_number}_{i}", c.name, c.arguments)
        for i, c in enumerate(calls)
    )
    return ModelResponse(text=response.text, tool_calls=filled, usage=response.usage)
