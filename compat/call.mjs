#!/usr/bin/env node
// Reference harness around the real @mastra/core 1.71.0 workspace tools.
//
// Usage:
//   node compat/call.mjs <root> <toolName> '<json input>' ['<json tools config>'] ['<json fs options>']
//   node compat/call.mjs <root> - '[["read_file",{"path":"a.txt"}],["write_file",{...}]]' [...]
//
// <toolName> is a tool id (mastra_workspace_read_file) or its short name (read_file).
// Batch mode: when the input is a JSON array whose every element is a [toolName, input] pair
// (toolName a string), the calls run in order on ONE tool set (shared read tracker and write lock)
// and every result is followed by "\n-----\n"; the <toolName> argument is then ignored.
// The 4th/5th arguments may be omitted, or given as "" / "null" to mean "none".
//
// Printed to stdout, with no added newline:
//   string result            -> the string itself
//   media result             -> JSON.stringify(result) (data kept)
//   validation-error object  -> its .message
//   thrown error             -> "THROWN <constructor name>: <message>"
//   anything else            -> JSON.stringify(result) (or String(result) if that is undefined)
// Exit status 0 in all those cases; 2 for harness usage errors (bad JSON, unknown tool).
//
// Environment:
//   WS_BM25=<json>      the Workspace's bm25 option instead of true: {k1,b} or {bm25:{k1,b},tokenize:{…}};
//                       tokenize.splitPattern (a regex source) becomes a RegExp, tokenize.stopwords a Set.
//   WS_SKILLS=<json>    the Workspace's skills option (an array of paths); the skill tools are then added
//                       beside the workspace tools, as Mastra's Agent adds them (the tools config does not apply).
//   WS_CALL_MODE=agent  run every call through Mastra's CoreToolBuilder (makeCoreTool, no model, so no
//                       schema-compat layer), i.e. the path an Agent uses: input is validated there
//                       BEFORE the workspace wrappers (write lock, read tracker) see it. Default: direct
//                       tools[name].execute(input, {}) as the brief specifies.
import { Workspace, LocalFilesystem, LocalSandbox, createWorkspaceTools, createSkillTools } from '@mastra/core/workspace';
import { isValidationError } from '@mastra/core/tools';

// Keep stdout for the result only: route any library logging to stderr.
for (const k of ['log', 'info', 'warn', 'debug', 'trace']) console[k] = (...a) => console.error(...a);

const realStdoutWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, enc, cb) => process.stderr.write(chunk, enc, cb); // stray writes -> stderr

function usage(msg) {
  process.stderr.write(`call.mjs: ${msg}\n`);
  process.exit(2);
}

function parseJsonArg(s, what, allowMissing) {
  if (s === undefined || (allowMissing && (s === '' || s === 'null'))) return undefined;
  try { return JSON.parse(s); } catch (e) { usage(`invalid JSON for ${what}: ${e.message}`); }
}

function render(result) {
  if (typeof result === 'string') return result;
  if (result && typeof result === 'object') {
    if (result.__workspaceMedia) return JSON.stringify(result);
    if (isValidationError(result) && typeof result.message === 'string') return result.message;
  }
  const j = JSON.stringify(result);
  return j === undefined ? String(result) : j;
}

const isBatch = v => Array.isArray(v) && v.length > 0 &&
  v.every(p => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string');

async function main() {
  const [root, toolName, inputArg, toolsArg, fsArg] = process.argv.slice(2);
  if (!root || toolName === undefined || inputArg === undefined) {
    usage("usage: node call.mjs <root> <toolName> '<json input>' ['<json tools config>'] ['<json fs options>']");
  }
  const input = parseJsonArg(inputArg, 'input', false);
  const toolsConfig = parseJsonArg(toolsArg, 'tools config', true);
  const fsOptions = parseJsonArg(fsArg, 'filesystem options', true) ?? {};

  let bm25 = true;
  if (process.env.WS_BM25) {
    bm25 = parseJsonArg(process.env.WS_BM25, 'WS_BM25', false);
    const tok = bm25 && bm25.tokenize;
    if (tok && typeof tok.splitPattern === 'string') tok.splitPattern = new RegExp(tok.splitPattern);
    if (tok && Array.isArray(tok.stopwords)) tok.stopwords = new Set(tok.stopwords);
  }
  const ws = new Workspace({
    filesystem: new LocalFilesystem({ basePath: root, ...fsOptions }),
    sandbox: new LocalSandbox({ workingDirectory: root }),
    bm25,
    ...(toolsConfig !== undefined ? { tools: toolsConfig } : {}),
    ...(process.env.WS_SKILLS ? { skills: parseJsonArg(process.env.WS_SKILLS, 'WS_SKILLS', false) } : {}),
  });
  await ws.init();
  const tools = await createWorkspaceTools(ws);
  if (process.env.WS_SKILLS && ws.skills) Object.assign(tools, createSkillTools(ws.skills));

  const resolve = name => {
    if (tools[name]) return [name, tools[name]];
    const full = `mastra_workspace_${name}`;
    if (tools[full]) return [full, tools[full]];
    usage(`unknown tool "${name}"; available: ${Object.keys(tools).join(' ')}`);
  };

  let makeCoreTool;
  if (process.env.WS_CALL_MODE === 'agent') ({ makeCoreTool } = await import('@mastra/core/utils'));

  const runOne = async (name, inp) => {
    const [id, tool] = resolve(name);
    try {
      let r;
      if (makeCoreTool) {
        const core = makeCoreTool(tool, { name: id, description: tool.description });
        r = await core.execute(inp, { toolCallId: 'call-1', messages: [] });
      } else {
        r = await tool.execute(inp, {});
      }
      return render(r);
    } catch (e) {
      const ctor = e && e.constructor ? e.constructor.name : typeof e;
      const msg = e && typeof e === 'object' && 'message' in e ? e.message : String(e);
      return `THROWN ${ctor}: ${msg}`;
    }
  };

  let out = '';
  if (isBatch(input)) {
    for (const [name, inp] of input) out += (await runOne(name, inp)) + '\n-----\n';
  } else {
    out = await runOne(toolName, input);
  }

  try { await ws.destroy(); } catch {}
  realStdoutWrite(out, () => process.exit(0));
}

main().catch(e => { process.stderr.write(`call.mjs: harness failure: ${e && e.stack || e}\n`); process.exit(2); });
