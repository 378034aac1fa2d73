"""Google ADK: `McpToolset` (google-adk[mcp]) over `StdioConnectionParams`, given to an
`LlmAgent` run by `InMemoryRunner` with a scripted `BaseLlm`. The model's second call records
the `function_response` part it is handed: its `response` (the dumped `CallToolResult`, sent
to the model as JSON) is what the model reads, its `isError` (or ADK's own `error` key) the failure mark. ADK sends as
request `_meta` the OpenTelemetry trace context only: a case's `traceparent` is sent by
running the agent inside that (remote) span."""

import json

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
from google.genai import types
from mcp import StdioServerParameters
from opentelemetry import context, trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from common import fault_args, main


class ScriptedLlm(BaseLlm):
    """Asks for one function call, then answers "done"; keeps each request's contents."""

    tool: str
    arguments: dict
    seen: list = []

    async def generate_content_async(self, llm_request, stream: bool = False):
        self.seen.append(list(llm_request.contents))
        if len(self.seen) == 1:
            call = types.FunctionCall(id="call-1", name=self.tool, args=self.arguments)
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
        else:
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="done")]))


def tool_view(model: ScriptedLlm) -> dict:
    responses = [
        p.function_response for c in (model.seen[-1] if len(model.seen) > 1 else []) for p in (c.parts or []) if p.function_response
    ]
    if not responses:
        return {"crash": "the model received no tool result"}
    response = responses[-1].response
    # A protocol error reaches the model as ADK's own {"error": ...}.
    marked = bool(response.get("isError")) if "content" in response else "error" in response
    return {"view": json.dumps(response), "marked": marked, "raw": response}


def remote_span(traceparent: str):
    """The context of a remote parent span given as a W3C `traceparent`."""
    _, trace_id, span_id, flags = traceparent.split("-")
    parent = SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=True, trace_flags=TraceFlags(int(flags, 16)))
    return trace.set_span_in_context(NonRecordingSpan(parent))


async def run_case(server: str, case: dict) -> dict:
    params = StdioConnectionParams(server_params=StdioServerParameters(command=server, args=fault_args(case)), timeout=20)
    toolset = McpToolset(connection_params=params)
    model = ScriptedLlm(model="scripted", tool=case["tool"], arguments=case["arguments"], seen=[])
    agent = LlmAgent(name="demo_agent", model=model, instruction="Call the tool.", tools=[toolset])
    runner = InMemoryRunner(agent=agent, app_name="demo")
    session = await runner.session_service.create_session(app_name="demo", user_id="user")
    message = types.Content(role="user", parts=[types.Part(text=f"call {case['tool']}")])
    traceparent = (case.get("meta") or {}).get("traceparent")
    token = context.attach(remote_span(traceparent)) if traceparent else None
    try:
        async for _event in runner.run_async(user_id="user", session_id=session.id, new_message=message):
            pass
    finally:
        if token is not None:
            context.detach(token)
        await toolset.close()
    return tool_view(model)


if __name__ == "__main__":
    main("Google ADK", ["google-adk", "mcp"], run_case)
