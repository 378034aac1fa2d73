// Calls one tool of a stdio MCP server with the TypeScript `@modelcontextprotocol/sdk` (v1)
// and prints what came back.
//
// Usage: node call_tool.mjs TOOL ARGS_JSON -- SERVER_COMMAND [SERVER_ARGS...]
// Prints one JSON line (the SDK prefixes McpError.message with "MCP error CODE: "):
//   {"outcome":"result","result":{...isError, content, _meta...}}
//   {"outcome":"protocol_error","code":-32602,"message":"...","data":{...}}
//   {"outcome":"client_error","message":"..."} when the SDK itself rejects the result
// It lists the tools first, as a host does, so the SDK knows each tool's outputSchema
// (it validates structuredContent against it). Tested with @modelcontextprotocol/sdk 1.32.2.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const [tool, argsJson, dashes, command, ...commandArgs] = process.argv.slice(2);
if (!tool || dashes !== "--" || !command) {
  console.error("usage: node call_tool.mjs TOOL ARGS_JSON -- SERVER_COMMAND [SERVER_ARGS...]");
  process.exit(2);
}

const client = new Client({ name: "mcp-errors-e2e", version: "0.1.0" });
await client.connect(new StdioClientTransport({ command, args: commandArgs, stderr: "inherit" }));
await client.listTools();
let out;
try {
  const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
  out = { outcome: "result", result };
} catch (error) {
  out =
    error instanceof McpError
      ? { outcome: "protocol_error", code: error.code, message: error.message, data: error.data }
      : { outcome: "client_error", message: String(error) };
}
console.log(JSON.stringify(out));
await client.close();
