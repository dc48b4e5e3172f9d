// The official TypeScript MCP client answers ws's approval question:
// node ts-elicit.mjs URL TOKEN, against a ws whose tools all need
// approval. It prints one JSON object per line for tsclient_test.go.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, token] = process.argv.slice(2);
const out = (key, value) => console.log(JSON.stringify({ [key]: value }));
const auth = { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
const text = (res) => ({ text: res.content.map((c) => c.text).join(""), isError: !!res.isError });

let action = "accept";
const client = new Client({ name: "ts-elicit", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  out("question", req.params.message);
  return action === "accept" ? { action, content: {} } : { action };
});
await client.connect(new StreamableHTTPClientTransport(new URL(url), auth));
const write = async (path) => text(await client.callTool({ name: "mastra_workspace_write_file", arguments: { path, content: "x" } }));
out("approved", await write("c.txt"));
action = "decline";
out("declined", await write("d.txt"));
await client.close();
process.exit(0);
