"""Google ADK: reflect-and-retry only the failures the server calls retryable.

`ReflectAndRetryToolPlugin` retries what `extract_error_from_result` reports as an error. An
MCP tool's result is the dumped `CallToolResult`, so the payload is at
`result["meta"]["rs.mcp-errors/error"]`: report it when `retryable`, and let any other failure
reach the model as it is (its text says `Not retryable.`).
Run: python adk_retry.py DEMO_SERVER (`ScriptedLlm` stands in for the LLM).
"""

import asyncio
import sys

from adk_driver import ScriptedLlm, tool_view
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.plugins import ReflectAndRetryToolPlugin
from google.adk.runners import InMemoryRunner
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
from google.genai import types
from mcp import StdioServerParameters

ERROR_KEY = "rs.mcp-errors/error"


class RetryWhenAdvised(ReflectAndRetryToolPlugin):
    async def extract_error_from_result(self, *, tool, tool_args, tool_context, result):
        if not isinstance(result, dict) or not result.get("isError"):
            return None
        payload = (result.get("meta") or result.get("_meta") or {}).get(ERROR_KEY) or {}
        return payload if payload.get("retryable") else None


async def view(server: str, faults: list[str], tool: str, args: dict) -> str:
    params = StdioConnectionParams(server_params=StdioServerParameters(command=server, args=faults), timeout=20)
    toolset = McpToolset(connection_params=params)
    model = ScriptedLlm(model="scripted", tool=tool, arguments=args, seen=[])
    agent = LlmAgent(name="demo_agent", model=model, instruction="Call the tool.", tools=[toolset])
    app = App(name="demo", root_agent=agent, plugins=[RetryWhenAdvised(max_retries=2)])
    runner = InMemoryRunner(app=app)
    session = await runner.session_service.create_session(app_name="demo", user_id="user")
    message = types.Content(role="user", parts=[types.Part(text=f"call {tool}")])
    try:
        async for _event in runner.run_async(user_id="user", session_id=session.id, new_message=message):
            pass
    finally:
        await toolset.close()
    return tool_view(model).get("view", "")


async def main(server: str) -> int:
    retried = await view(server, ["--fault", "search_down"], "search_docs", {"department": "finance", "keywords": "travel"})
    final = await view(server, [], "reserve_seat", {"seat_id": "A1"})
    ok = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN" in retried and "BACKEND_DOWN" in retried
    ok = ok and "REFLECT_AND_RETRY" not in final and "SEAT_TAKEN" in final
    print("ok" if ok else f"retryable: {retried[:300]!r}; not retryable: {final[:300]!r}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
