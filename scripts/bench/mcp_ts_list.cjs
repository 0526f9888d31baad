// How long the official TypeScript MCP SDK (1.x) takes to list `tapflow mcp`'s tools, and how many
// warnings it prints meanwhile (issue 19: 1.x compiles every outputSchema with Ajv on listTools,
// and Ajv warns once per non-standard `format`). Spawns the server over stdio.
//
// usage: node mcp_ts_list.cjs SDK_DIR TAPFLOW_BIN [extra `tapflow mcp` args…]
// (SDK_DIR: node_modules/@modelcontextprotocol/sdk of an install of @modelcontextprotocol/sdk@1)
const path = require("path");
const [sdk, bin, ...extra] = process.argv.slice(2);
const { Client } = require(path.join(sdk, "dist/cjs/client/index.js"));
const { StdioClientTransport } = require(path.join(sdk, "dist/cjs/client/stdio.js"));

let warnings = 0;
for (const level of ["warn", "error", "log"]) {
  console[level] = () => {
    warnings += 1;
  };
}
const out = (s) => process.stdout.write(s + "\n");

(async () => {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--sim", "1", "--sim-latency", "none", ...extra],
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  const t0 = performance.now();
  const r = await client.listTools();
  const listMs = performance.now() - t0;
  await client.close();
  out(JSON.stringify({ tools: r.tools.length, list_ms: Math.round(listMs), warnings }));
})().catch((e) => {
  out(JSON.stringify({ error: String(e) }));
  process.exit(1);
});
