// Overhead of `mcp-contract-guard proxy` (issue 14), against the built package's bin:
//   node bench/proxy.mjs            print the table
//   node bench/proxy.mjs --strict   also exit 1 when a target is missed
// A client speaking raw JSON-RPC (no SDK on the timed path) calls a server written without an
// SDK (test/fixtures/servers/raw-inventory.mjs), once directly and once through the proxy. Calls
// alternate between the two in rounds, so a busy moment of the machine hits both alike.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNNER_ENV, binOf, printTargets } from './measure.mjs';

const strict = process.argv.includes('--strict');
const root = fileURLToPath(new URL('..', import.meta.url));
const SERVER = [process.execPath, `${root}test/fixtures/servers/raw-inventory.mjs`];
const PROXY = [process.execPath, binOf(root), 'proxy', '--'];
const ROUNDS = 10;
const CALLS_PER_ROUND = 50;
const BURST = 2000;

const VALID = { name: 'create_order', arguments: { sku: 'A-1', quantity: 2, currency: 'EUR' } };
const INVALID = { name: 'create_order', arguments: { sku: 'A-1', quantity: 2 } };
/** Shaped for a release that called `quantity` `amount`: the routing proxy passes it as `quantity`. */
const OLD_SHAPED = { name: 'create_order', arguments: { sku: 'A-1', amount: 2, currency: 'EUR' } };

// The artifact of that rename, released today (inside the deprecation window).
const scratch = mkdtempSync(join(tmpdir(), 'mcg-bench-proxy-'));
const ARTIFACT = join(scratch, 'deltas.json');
writeFileSync(
  ARTIFACT,
  JSON.stringify({
    version: 1,
    summary: { maxSeverity: 'BREAKING', counts: { BREAKING: 1, RISKY: 0, SAFE: 0, COSMETIC: 0 } },
    tools: {
      create_order: {
        maxSeverity: 'BREAKING',
        deltas: [{ severity: 'BREAKING', kind: 'property-renamed', field: 'inputSchema.properties.quantity', action: null, direction: 'input', message: 'renamed', previous: 'amount', current: 'quantity', fingerprint: 'a'.repeat(16), facts: { sameSchema: true } }],
      },
    },
    prompts: {},
    resources: {},
    resourceTemplates: {},
    release: { version: '2.0.0', date: new Date().toISOString().slice(0, 10) },
  }),
);
const ROUTING = [process.execPath, binOf(root), 'proxy', '--artifact', ARTIFACT, '--renames', 'route', '--'];

/** A raw JSON-RPC client over a child's stdio; `call()` resolves with the answer's round trip in ms. */
function start(argv) {
  const child = spawn(argv[0], argv.slice(1), { env: RUNNER_ENV, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let buffer = '';
  let nextId = 1;
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return {
    async open() {
      await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      // The proxy lists the tools itself; a first call waits for that listing, not timed.
      await request('tools/call', VALID);
    },
    async call(params) {
      const started = process.hrtime.bigint();
      const answer = await request('tools/call', params);
      if (answer.error !== undefined) throw new Error(JSON.stringify(answer.error));
      return { ms: Number(process.hrtime.bigint() - started) / 1e6, answer };
    },
    async burst(count) {
      const started = process.hrtime.bigint();
      await Promise.all(Array.from({ length: count }, () => request('tools/call', VALID)));
      return Number(process.hrtime.bigint() - started) / 1e6;
    },
    close() {
      child.stdin.end();
      return new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const direct = start(SERVER);
const proxied = start([...PROXY, ...SERVER]);
const routing = start([...ROUTING, ...SERVER]);
await Promise.all([direct.open(), proxied.open(), routing.open()]);

// Warm-up: the JIT, ajv's compiled validator, the pipes.
for (let i = 0; i < 200; i += 1) {
  await direct.call(VALID);
  await proxied.call(VALID);
  await proxied.call(INVALID);
}

for (let i = 0; i < 200; i += 1) {
  await routing.call(VALID);
  await routing.call(OLD_SHAPED);
}

const times = { direct: [], proxied: [], blocked: [], routingValid: [], routed: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  for (let i = 0; i < CALLS_PER_ROUND; i += 1) {
    times.direct.push((await direct.call(VALID)).ms);
    times.proxied.push((await proxied.call(VALID)).ms);
    const blocked = await proxied.call(INVALID);
    if (!blocked.answer.result?.content?.[0]?.text?.includes('<validation_error')) throw new Error('the invalid call was not answered by the proxy');
    times.blocked.push(blocked.ms);
    times.routingValid.push((await routing.call(VALID)).ms);
    const routed = await routing.call(OLD_SHAPED);
    if (routed.answer.result?.content?.[0]?.text !== 'ordered 2 A-1 in EUR') throw new Error(`the old-shaped call was not routed: ${JSON.stringify(routed.answer)}`);
    times.routed.push(routed.ms);
  }
}
const directMs = median(times.direct);
const proxiedMs = median(times.proxied);
const overheadMs = proxiedMs - directMs;
const blockedMs = median(times.blocked);
const routingValidMs = median(times.routingValid);
const routedMs = median(times.routed);

const bursts = { direct: [], proxied: [] };
for (let round = 0; round < 5; round += 1) {
  bursts.direct.push(await direct.burst(BURST));
  bursts.proxied.push(await proxied.burst(BURST));
}
const directRate = BURST / (median(bursts.direct) / 1000);
const proxiedRate = BURST / (median(bursts.proxied) / 1000);
await Promise.all([direct.close(), proxied.close(), routing.close()]);
rmSync(scratch, { recursive: true, force: true });

const calls = ROUNDS * CALLS_PER_ROUND;
const rows = [
  ['valid call, direct (round trip)', `${directMs.toFixed(3)} ms`, '(reference)', ''],
  ['valid call, through the proxy', `${proxiedMs.toFixed(3)} ms`, '(reference)', ''],
  ['  overhead per call (proxy − direct)', `${overheadMs.toFixed(3)} ms`, '≤ 1 ms', overheadMs <= 1],
  ['invalid call, answered by the proxy', `${blockedMs.toFixed(3)} ms`, '(reference)', ''],
  ['valid call, proxy with a renaming artifact, --renames route', `${routingValidMs.toFixed(3)} ms`, '(reference)', ''],
  ['  its identity path − the proxy without an artifact', `${(routingValidMs - proxiedMs).toFixed(3)} ms`, '≤ 0.05 ms', routingValidMs - proxiedMs <= 0.05],
  ['old-shaped call (amount → quantity), routed', `${routedMs.toFixed(3)} ms`, '(reference)', ''],
  ['  routed − valid, same proxy', `${(routedMs - routingValidMs).toFixed(3)} ms`, '≤ 0.2 ms', routedMs - routingValidMs <= 0.2],
  [`burst of ${BURST} calls, direct`, `${Math.round(directRate).toLocaleString('en-US')} calls/s`, '(reference)', ''],
  [`burst of ${BURST} calls, through the proxy`, `${Math.round(proxiedRate).toLocaleString('en-US')} calls/s`, '(reference)', ''],
  ['  proxy throughput / direct', `${(proxiedRate / directRate).toFixed(2)}×`, '≥ 0.5×', proxiedRate / directRate >= 0.5],
];
printTargets(`\nmcp-contract-guard proxy overhead (node ${process.version}, medians of ${calls} alternating calls; bursts: median of 5)`, rows, { strict });
