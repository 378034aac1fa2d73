"""OpenAI Agents SDK: a `failure_error_function` that keeps the server's words.

An `isError` result already reaches the model as its text (code, retry advice, hint). A
JSON-RPC error is raised out of the tool, and the SDK's default failure text replaces it with
"An error occurred while running the tool. Please try again.". This one hands the model the
error's message, which starts with the code.
Run: python openai_agents_failure.py DEMO_SERVER (`ScriptedModel` stands in for the LLM).
"""

import asyncio
import sys

from agents import Agent, Runner
from agents.mcp import MCPServerStdio
from mcp import MCPError
from openai_agents_driver import ScriptedModel, tool_view


def keep_server_message(context, error: Exception) -> str:
    """The model's text for a tool call that raised: a JSON-RPC error's own message."""
    cause = error
    while cause is not None and not isinstance(cause, MCPError):
        cause = cause.__cause__
    if cause is not None:
        return f"The tool call failed: {cause.error.message}"
    return f"The tool call failed: {error}"


async def main(server: str) -> int:
    args = {"service": "checkout", "start_time": "2026-11-02T11:00:00Z", "end_time": "2026-11-02T10:00:00Z"}
    async with MCPServerStdio(params={"command": server}, failure_error_function=keep_server_message) as mcp:
        model = ScriptedModel("query_logs", args)
        agent = Agent(name="demo-agent", instructions="Call the tool.", model=model, mcp_servers=[mcp])
        await Runner.run(agent, "call query_logs", max_turns=3)
    view = tool_view(model).get("view", "")
    # The server may answer with an isError result (its text reaches the model as it is) or
    # with a JSON-RPC error (then through keep_server_message): either way the code reaches it.
    ok = "TIME_RANGE_REVERSED" in view and "An error occurred while running the tool" not in view
    print("ok" if ok else f"the model read {view!r}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
