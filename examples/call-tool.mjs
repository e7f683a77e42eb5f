// Plays the agent: starts an MCP server over stdio, calls one tool with the arguments given, and
// prints the text of the result, which is what a model reads. Use it to see the runtime or the
// proxy answer a call shaped for the old contract:
//
//   node examples/call-tool.mjs TOOL 'ARGUMENTS AS JSON' -- SERVER COMMAND…
//   node examples/call-tool.mjs create_order '{"sku":"A-1","quantity":2}' -- node examples/inventory/v2.mjs
//
// Exit code 0 when the tool answered (an error result included: it is printed like any other),
// 2 when the call could not be made.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const USAGE = "Usage: node examples/call-tool.mjs TOOL 'ARGUMENTS AS JSON' -- SERVER COMMAND…";

function fail(message) {
  console.error(message);
  process.exit(2);
}

const separator = process.argv.indexOf('--');
const [tool, json, ...extra] = process.argv.slice(2, separator === -1 ? undefined : separator);
const [command, ...args] = separator === -1 ? [] : process.argv.slice(separator + 1);
if (tool === undefined || json === undefined || extra.length > 0 || command === undefined) fail(USAGE);

let toolArguments;
try {
  toolArguments = JSON.parse(json);
} catch (error) {
  fail(`The arguments are not JSON (${error.message}).\n${USAGE}`);
}

// The server's stderr is this terminal's: its own messages (a bad artifact, say) show as they are.
const client = new Client({ name: 'call-tool', version: '1.0.0' });
try {
  await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
} catch (error) {
  fail(`The server (${[command, ...args].join(' ')}) stopped before it answered: ${error.message}.`);
}
try {
  const result = await client.callTool({ name: tool, arguments: toolArguments });
  const text = (result.content ?? []).map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
  console.log(text);
} catch (error) {
  fail(`The call to ${tool} failed: ${error.message}.`);
} finally {
  await client.close();
}
