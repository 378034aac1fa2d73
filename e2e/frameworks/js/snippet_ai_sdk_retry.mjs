// Vercel AI SDK: retry an MCP tool as the server advises, and hand the model a failure as a
// tool error. The MCP tools of `@ai-sdk/mcp` return an `isError` result like a success; this
// wrapper reads its payload in `_meta["rs.mcp-errors/error"]`, calls again while `retryable`
// (waiting `retryAfterMs` when given), then throws the text, so the model gets an
// `error-text` tool result (the AI SDK's failure mark).
// Run: node snippet_ai_sdk_retry.mjs DEMO_SERVER (`scriptedModel` stands in for the LLM).
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport as StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { generateText, isStepCount } from "ai";
import { scriptedModel, toolView } from "./ai-sdk.mjs";

const ERROR_KEY = "rs.mcp-errors/error";

/** The tools with each `execute` retried as the payload advises, a failure thrown as its text. */
export function retryAsAdvised(tools, { attempts = 3, defaultDelayMs = 200, onCall } = {}) {
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [
      name,
      {
        ...tool,
        execute: async (args, options) => {
          for (let attempt = 1; ; attempt += 1) {
            onCall?.(name);
            const result = await tool.execute(args, options);
            if (!result?.isError) return result;
            const payload = result._meta?.[ERROR_KEY];
            if (!payload?.retryable || attempt >= attempts) {
              throw new Error(result.content.map((block) => block.text ?? "").join("\n"));
            }
            await new Promise((done) => setTimeout(done, payload.retryAfterMs ?? defaultDelayMs));
          }
        },
      },
    ]),
  );
}

async function run(server, faults, tool, args) {
  const client = await createMCPClient({ transport: new StdioMCPTransport({ command: server, args: faults }) });
  try {
    const calls = [];
    const seen = [];
    await generateText({
      model: scriptedModel(tool, args, seen),
      tools: retryAsAdvised(await client.tools(), { onCall: (name) => calls.push(name) }),
      prompt: `call ${tool}`,
      stopWhen: isStepCount(2),
    });
    const { view, marked } = toolView(seen);
    return `${calls.length} ${marked ? "error" : "result"} ${view}`;
  } finally {
    await client.close();
  }
}

const server = process.argv[2];
const got = [
  await run(server, ["--fault", "search_down"], "search_docs", { department: "finance", keywords: "travel" }),
  await run(server, [], "reserve_seat", { seat_id: "A1" }),
  await run(server, [], "reserve_seat", { seat_id: "A2" }),
];
const want = [["3 error ", "BACKEND_DOWN: "], ["1 error ", "SEAT_TAKEN: "], ["1 result ", '{"id":"A2"']];
const ok = got.every((g, i) => g.startsWith(want[i][0]) && g.includes(want[i][1]));
console.log(ok ? "ok" : `got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
process.exit(ok ? 0 : 1);
