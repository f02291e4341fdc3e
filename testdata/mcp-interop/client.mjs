// Drives an MCP server with the official TypeScript SDK's client, for
// codemode's interoperability tests: lists the tools and makes the calls
// given as JSON, then prints what it saw as one JSON line.
//
//   node client.mjs stdio COMMAND [ARGS...] < calls.json
//   node client.mjs http URL < calls.json
//
// calls.json: [{"name": "batch", "arguments": {...}}, ...]. Each call's
// outcome is {isError, structured, text} or, when the SDK threw (a protocol
// error), {protocolError}.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...args] = process.argv.slice(2);
if (mode !== "stdio" && mode !== "http") {
  console.error("usage: node client.mjs stdio COMMAND [ARGS...] | http URL  (calls as JSON on stdin)");
  process.exit(2);
}
const calls = JSON.parse(readFileSync(0, "utf8"));
const transport = mode === "http"
  ? new StreamableHTTPClientTransport(new URL(target))
  : new StdioClientTransport({ command: target, args, stderr: "inherit" });
const client = new Client({ name: "codemode-interop", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const out = { server: client.getServerVersion()?.name ?? null, tools: tools.map((t) => t.name).sort(), calls: [] };
for (const c of calls) {
  try {
    const r = await client.callTool({ name: c.name, arguments: c.arguments ?? {} });
    out.calls.push({
      isError: Boolean(r.isError),
      structured: r.structuredContent ?? null,
      text: (r.content ?? []).filter((p) => p.type === "text").map((p) => p.text).join(""),
    });
  } catch (e) {
    out.calls.push({ protocolError: String(e?.message ?? e) });
  }
}
console.log(JSON.stringify(out));
await client.close();
