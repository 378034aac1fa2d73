// Mastra: `MCPClient` (@mastra/mcp) over stdio, its tools given to an `Agent` (@mastra/core)
// whose model is the AI SDK's scripted `MockLanguageModelV4`. Mastra names the tools
// `<server>_<tool>`. The second model call records the tool message: what the model reads.
// Mastra sends as request `_meta` the trace context of the server's `traceContext` only, so a
// case's `traceparent` is sent that way.
import { Agent } from "@mastra/core/agent";
import { MCPClient } from "@mastra/mcp";
import { faultArgs, main } from "./common.mjs";
import { scriptedModel, toolView } from "./ai-sdk.mjs";

let serial = 0;

const TRACE_KEYS = ["traceparent", "tracestate", "baggage"];

async function runCase(c) {
  if (Object.keys(c.meta ?? {}).some((key) => !TRACE_KEYS.includes(key))) {
    return { skipped: "Mastra sends as request _meta the trace context only" };
  }
  serial += 1;
  const mcp = new MCPClient({
    id: `case-${serial}`,
    servers: {
      demo: { command: globalThis.DEMO_SERVER, args: faultArgs(c), traceContext: () => (c.meta ? { ...c.meta } : undefined) },
    },
  });
  try {
    const seen = [];
    const agent = new Agent({
      id: "demo-agent",
      name: "demo-agent",
      instructions: "Call the tool.",
      model: scriptedModel(`demo_${c.tool}`, c.arguments, seen),
      tools: await mcp.listTools(),
    });
    await agent.generate(`call ${c.tool}`, { maxSteps: 2 });
    return toolView(seen);
  } finally {
    await mcp.disconnect();
  }
}

await main("Mastra", ["@mastra/core", "@mastra/mcp"], runCase, { canSendMeta: true });
