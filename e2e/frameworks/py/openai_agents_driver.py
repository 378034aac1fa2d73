"""OpenAI Agents SDK: `MCPServerStdio` (openai-agents) given to an `Agent` run by `Runner` with
a scripted `Model`. The model's second call records the `function_call_output` item it is
handed: its `output` is what the model reads; the SDK has no failure mark on it. The case's
`_meta` is sent through the server's `tool_meta_resolver`."""

import json

from agents import Agent, Runner, set_tracing_disabled
from agents.items import ModelResponse
from agents.mcp import MCPServerStdio
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from common import exact, fault_args, main

set_tracing_disabled(True)


class ScriptedModel(Model):
    """Asks for one tool call, then answers "done"; keeps the input of each call."""

    def __init__(self, tool: str, arguments: dict):
        self.tool, self.arguments, self.seen = tool, arguments, []

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs, tracing, **kwargs):
        self.seen.append(input)
        if len(self.seen) == 1:
            call = ResponseFunctionToolCall(
                type="function_call", id="fc-1", call_id="call-1", name=self.tool, arguments=json.dumps(self.arguments)
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        text = ResponseOutputText(type="output_text", text="done", annotations=[])
        message = ResponseOutputMessage(type="message", id="msg-1", role="assistant", status="completed", content=[text])
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("the scripted model does not stream")


def tool_view(model: ScriptedModel) -> dict:
    items = [i for i in model.seen[-1] if isinstance(i, dict) and i.get("type") == "function_call_output"]
    if len(model.seen) < 2 or not items:
        return {"crash": "the model received no tool result"}
    return {"view": exact(items[-1]["output"]), "marked": None, "raw": items[-1]}


async def run_case(server: str, case: dict) -> dict:
    meta = case.get("meta")
    params = {"command": server, "args": fault_args(case)}
    async with MCPServerStdio(params=params, tool_meta_resolver=(lambda _context: meta) if meta else None) as mcp:
        model = ScriptedModel(case["tool"], case["arguments"])
        agent = Agent(name="demo-agent", instructions="Call the tool.", model=model, mcp_servers=[mcp])
        await Runner.run(agent, f"call {case['tool']}", max_turns=3)
        return tool_view(model)


if __name__ == "__main__":
    main("OpenAI Agents SDK", ["openai-agents", "mcp"], run_case)
