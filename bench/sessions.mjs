// Memory of `mcp-contract-guard proxy --listen` (issue 27) over thousands of sessions opened and
// abandoned without DELETE, against the built package's bin:
//   node bench/sessions.mjs            print the table
//   node bench/sessions.mjs --strict   also exit 1 when a target is missed
// The proxy is a gateway (--url) in front of a server written without an SDK
// (test/fixtures/servers/raw-inventory.mjs --http), at its default cap of 32 sessions. Each
// session is what a client that walks away leaves: initialize, initialized (the proxy then lists
// the tools and compiles their schemas), one call, and no DELETE. The proxy's resident memory
// is read from /proc at checkpoints; past the first thousand sessions (the heap's working size)
// it must stay flat: the sessions made room for are gone, not kept.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { binOf, printTargets } from './measure.mjs';

const strict = process.argv.includes('--strict');
const root = fileURLToPath(new URL('..', import.meta.url));
const CHECKPOINTS = [1000, 2000, 3000, 4000];
const AT_ONCE = 4;
/** Growth allowed from the first checkpoint to the last: noise of the allocator, not sessions. */
const FLAT_MB = 16;

function started(argv) {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      seen += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve({ child, url: new URL(match[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${argv[0]} exited with ${code}: ${seen}`)));
  });
}

function residentMb(pid) {
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
async function post(url, message, session) {
  const response = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) }, body: JSON.stringify(message) });
  const body = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${body}`);
  return { session: response.headers.get('mcp-session-id'), body };
}

async function abandonOne(url) {
  const { session } = await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'walks-away', version: '1' } } });
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  const { body } = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'check_stock', arguments: { sku: 'A-1' } } }, session);
  if (!body.includes('A-1: 12')) throw new Error(`unexpected answer: ${body}`);
}

const server = await started([`${root}test/fixtures/servers/raw-inventory.mjs`, '--http', '0']);
const proxy = await started([binOf(root), 'proxy', '--listen', '127.0.0.1:0', '--url', server.url.href]);
const figures = [];
const began = process.hrtime.bigint();
let opened = 0;
try {
  for (const checkpoint of CHECKPOINTS) {
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (opened < checkpoint) {
          opened += 1;
          await abandonOne(proxy.url);
        }
      }),
    );
    // Let the sessions ended for room finish ending (their upstream DELETEs) before reading.
    await new Promise((resolve) => setTimeout(resolve, 500));
    figures.push([checkpoint, residentMb(proxy.child.pid)]);
  }
} finally {
  proxy.child.kill('SIGTERM');
  server.child.kill();
}
const seconds = Number(process.hrtime.bigint() - began) / 1e9;
const [first, last] = [figures[0], figures.at(-1)];
const growth = last[1] - first[1];
const rows = [
  ...figures.map(([count, mb]) => [`proxy resident memory after ${count.toLocaleString('en-US')} abandoned sessions`, `${mb.toFixed(1)} MB`, '(reference)', '']),
  [`  growth from ${first[0].toLocaleString('en-US')} to ${last[0].toLocaleString('en-US')} sessions`, `${growth.toFixed(1)} MB`, `≤ ${FLAT_MB} MB`, growth <= FLAT_MB],
  ['sessions opened and abandoned per second', `${Math.round(last[0] / seconds)}`, '(reference)', ''],
];
printTargets(`\nmcp-contract-guard proxy --listen --url: memory over abandoned sessions (node ${process.version}, cap 32, ${AT_ONCE} clients at once)`, rows, { strict });
