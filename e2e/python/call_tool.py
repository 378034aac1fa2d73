"""Calls one tool of a stdio MCP server with the Python `mcp` SDK and prints what came back.

Usage: python call_tool.py TOOL ARGS_JSON -- SERVER_COMMAND [SERVER_ARGS...]

Prints one JSON line:
  {"outcome": "result", "result": {...CallToolResult as on the wire, incl. isError, _meta...}}
  {"outcome": "protocol_error", "code": -32602, "message": "...", "data": {...}}
Exit code 0 either way; 2 on bad usage. Tested with mcp 2.3.0 (there the exception is
`MCPError`; mcp 1.x calls it `McpError`, same `.error.code`).
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client

try:  # mcp >= 2
    from mcp import MCPError as ProtocolError
except ImportError:  # mcp 1.x
    from mcp.shared.exceptions import McpError as ProtocolError


async def call(tool: str, arguments: dict, command: list[str]) -> dict:
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            version = init.protocol_version
            try:
                result = await session.call_tool(tool, arguments)
            except ProtocolError as error:
                return {
                    "outcome": "protocol_error",
                    "protocolVersion": version,
                    "code": error.error.code,
                    "message": error.error.message,
                    "data": error.error.data,
                }
            return {
                "outcome": "result",
                "protocolVersion": version,
                "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
            }


def main() -> int:
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    tool, arguments, command = sys.argv[1], json.loads(sys.argv[2]), sys.argv[4:]
    print(json.dumps(asyncio.run(call(tool, arguments, command))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
