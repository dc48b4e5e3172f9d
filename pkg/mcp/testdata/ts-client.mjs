// A session of the official TypeScript MCP client with `ws mcp --http`:
// node ts-client.mjs URL TOKEN PID. It prints one JSON object per line;
// the Go test (tsclient_test.go) checks them. PID is the ws process, sent
// SIGTERM while a call is in flight.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, pid] = process.argv.slice(2);
const out = (key, value) => console.log(JSON.stringify({ [key]: value }));
const auth = { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
const session = async (name) => {
  const c = new Client({ name, version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), auth));
  return c;
};
const text = (res) => ({ text: res.content.map((c) => c.text).join(""), isError: !!res.isError });

// Without the token: 401, and the client cannot connect.
const raw = await fetch(url, {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
});
out("unauthorized", raw.status);
try {
  await new Client({ name: "no-token", version: "1" }).connect(new StreamableHTTPClientTransport(new URL(url)));
  out("noToken", "connected");
} catch {
  out("noToken", "refused");
}

const client = await session("ts-test");
out("server", client.getServerVersion().name);
out("tools", (await client.listTools()).tools.map((t) => t.name));
const call = async (name, args) => text(await client.callTool({ name, arguments: args }));
out("read", await call("mastra_workspace_read_file", { path: "a.txt" }));
out("write", await call("mastra_workspace_write_file", { path: "b.txt", content: "from ts\n" }));
out("edit", await call("mastra_workspace_edit_file", { path: "b.txt", old_string: "ts", new_string: "TypeScript" }));
out("readBack", await call("mastra_workspace_read_file", { path: "b.txt" }));
out("missing", await call("mastra_workspace_read_file", { path: "nope.txt" }));
out("invalid", await call("mastra_workspace_read_file", { path: "a.txt", offset: 0 }));
out("exec", await call("mastra_workspace_execute_command", { command: "echo hi; exit 3" }));

// A call longer than the client's own timeout (1 s here, 60 s by default)
// still answers when the client restarts its timeout on each progress
// notification, which ws sends (every 0.3 s in this test) to a call that
// asks for them.
let heard = 0;
const long = await client.callTool({ name: "mastra_workspace_execute_command", arguments: { command: "sleep 2; echo long" } },
  undefined, { onprogress: () => { heard++; }, timeout: 1000, resetTimeoutOnProgress: true });
out("long", text(long));
out("progressHeard", heard >= 3);

// A second session while a slow call of the first runs; then SIGTERM to
// ws: the slow call still answers, and the server goes.
const second = await session("second");
const slow = client.callTool({ name: "mastra_workspace_execute_command", arguments: { command: "sleep 1; echo drained" } });
await new Promise((r) => setTimeout(r, 300));
out("second", text(await second.callTool({ name: "mastra_workspace_read_file", arguments: { path: "a.txt" } })));
process.kill(Number(pid), "SIGTERM");
out("drained", text(await slow));
await new Promise((r) => setTimeout(r, 200));
try {
  const after = await fetch(url, { method: "POST", headers: { Authorization: `Bearer ${token}` }, body: "{}" });
  out("after", after.status);
} catch {
  out("after", "gone");
}
process.exit(0);
