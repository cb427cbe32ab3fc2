"""openai-agents agents driven by our fakes, traced by the real OpenInference instrumentation.

``SpannedModel`` opens the SDK's ``generation_span`` around a ``SimModel`` call, as the
SDK's own chat-completions model does, so the instrumentation writes LLM spans
(``llm.model_name``, flattened messages). The spans go to opentelemetry-sdk's in-memory
exporter and become OTLP JSON through ``handoff_sim.otel.otlp_json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents import Agent, Model, ModelResponse, Runner
from agents.tracing import generation_span
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from handoff_sim.adapters.openai_agents import SimModel, simulate_run
from handoff_sim.otel import otlp_json
from handoff_sim.testing import ScriptedModel

__all__ = ["fan_out", "record", "step"]


def _as_chat(item: Any) -> dict[str, Any]:
    """One Responses output item as the chat-completions message the span records."""
    data = item.model_dump()
    if data.get("type") == "function_call":
        function = {"name": data["name"], "arguments": data["arguments"]}
        call = {"id": data["call_id"], "type": "function", "function": function}
        return {"role": "assistant", "tool_calls": [call]}
    texts = [part.get("text", "") for part in data.get("content", [])]
    return {"role": "assistant", "content": "".join(texts)}


class SpannedModel(Model):
    """A ``SimModel`` whose every call is an SDK generation span named after ``model``."""

    def __init__(self, inner: SimModel, model: str = "sim-model") -> None:
        self.inner = inner
        self.model = model

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        system = kwargs.get("system_instructions", args[0] if args else None)
        given = kwargs.get("input", args[1] if len(args) > 1 else None)
        messages = [{"role": "system", "content": system or ""}]
        if isinstance(given, str):
            messages.append({"role": "user", "content": given})
        with generation_span(model=self.model, input=messages) as span:
            response = await self.inner.get_response(*args, **kwargs)
            span.span_data.output = [_as_chat(item) for item in response.output]
        return response

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.stream_response(*args, **kwargs)


def step(text: str | None = None, *calls: str, latency: float = 0) -> dict[str, Any]:
    """A script step: a text answer, or calls of the named tools (ids ``<tool>-<n>``)."""
    if text is not None:
        return {"text": text, "latency": latency}
    tool_calls = [
        {"id": f"{n}-{i}", "name": n, "arguments": {"input": "t"}} for i, n in enumerate(calls)
    ]
    return {"tool_calls": tool_calls, "latency": latency}


def agent(name: str, *steps: dict[str, Any], **options: Any) -> Agent[None]:
    return Agent(name=name, model=SpannedModel(SimModel(ScriptedModel(list(steps)))), **options)


def fan_out(
    *, worker_latency: float = 0.2, forbidden: bool = False, loop: bool = False
) -> Agent[None]:
    """manager → (billing ∥ research → worker), as agents-as-tools; billing calls lookup.

    ``forbidden``: billing also calls delete_account; ``loop``: the worker asks a second
    agent named research (manager → research → worker → research).
    """
    from agents import function_tool

    @function_tool
    def lookup(input: str) -> str:
        """Look an account up."""
        return "row"

    @function_tool
    def delete_account(input: str) -> str:
        """Delete an account."""
        return "gone"

    worker_tools = []
    worker_steps = [step("built", latency=worker_latency)]
    if loop:
        again = agent("research", step("inner"))
        worker_tools = [again.as_tool("ask_research", "Ask research")]
        worker_steps = [step(None, "ask_research"), step("built", latency=worker_latency)]
    worker = agent("worker", *worker_steps, tools=worker_tools)
    research = agent(
        "research",
        step(None, "build"),
        step("researched"),
        tools=[worker.as_tool("build", "Build")],
    )
    billing_steps = [step(None, "lookup"), step("billed", latency=1)]
    if forbidden:
        billing_steps.insert(1, step(None, "delete_account"))
    billing = agent("billing", *billing_steps, tools=[lookup, delete_account])
    return agent(
        "manager",
        step(None, "bill", "research"),
        step("all-done"),
        tools=[billing.as_tool("bill", "Bill"), research.as_tool("research", "Research")],
    )


def record(manager: Agent[None], path: Path) -> Path:
    """Run ``manager`` in virtual time under the OpenInference instrumentation; write the
    exported spans to ``path`` as OTLP JSON."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = OpenAIAgentsInstrumentor()

    async def main() -> object:
        # inside the run: simulate_run's capture has installed its trace provider, and the
        # instrumentation adds its processor to the provider in use
        instrumentor.instrument(tracer_provider=provider)
        try:
            return await Runner.run(manager, "go")
        finally:
            instrumentor.uninstrument()

    simulate_run(main())
    path.write_text(json.dumps(otlp_json(exporter.get_finished_spans())), encoding="utf-8")
    return path
