// Benchmarks of mcp-contract-guard/runtime (issue 5), against the compiled lib/runtime:
//   node bench/runtime.mjs            print the table
//   node bench/runtime.mjs --strict   also exit 1 when a target is missed
// Build first (`npm run build`). Timings are medians of several rounds, after a warm-up, so one
// GC pause or JIT tier-up does not decide a figure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createToolEnhancer, enrichValidationError, identityEnhancer, loadDeltaMap, withSelfHealing } from '../lib/runtime/index.js';
import { CallRouter } from '../lib/runtime/routing.js';
import { printTargets } from './measure.mjs';

const strict = process.argv.includes('--strict');
const ROUNDS = 11;

const ERROR_XML = [
  '<validation_error tool="create_order">',
  '<field name="currency">Required field "currency" is missing. You sent: nothing. Expected: one of "USD", "EUR", "GBP". Fix: Add "currency" to the arguments, e.g. "currency": "USD".</field>',
  '<field name="quantity">Too small: expected number to be >=1. You sent: 0. Expected: integer of at least 1. Fix: Provide an integer of at least 1.</field>',
  '<recovery>Add the missing field "currency". Fix the fields above and call the tool again. Do not explain the error.</recovery>',
  '</validation_error>',
].join('\n');

function delta(tool, i, severity = 'BREAKING') {
  return {
    severity,
    kind: i === 0 ? 'required-property-added' : 'property-type-changed',
    field: `inputSchema.properties.field_${i}`,
    action: null,
    message: `Property "field_${i}" of ${tool} changed.`,
    previous: i === 0 ? null : { type: 'string', maxLength: 64, description: `Field ${i}` },
    current: { type: 'string', enum: ['USD', 'EUR', 'GBP'], description: `Field ${i}, now an ISO 4217 code` },
    fingerprint: `${tool}-${i}`,
    hint: `Send field_${i} as one of the listed values.`,
  };
}

function artifact(toolCount, deltasPerTool) {
  const tools = {};
  for (let t = 0; t < toolCount; t += 1) {
    const name = `tool_${String(t).padStart(4, '0')}`;
    const deltas = Array.from({ length: deltasPerTool }, (_, i) => delta(name, i, i % 3 === 2 ? 'RISKY' : 'BREAKING'));
    tools[name] = { maxSeverity: 'BREAKING', deltas };
  }
  const total = toolCount * deltasPerTool;
  return {
    version: 1,
    summary: { maxSeverity: 'BREAKING', counts: { BREAKING: total, RISKY: 0, SAFE: 0, COSMETIC: 0 } },
    tools,
    prompts: {},
    resources: {},
    resourceTemplates: {},
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Nanoseconds per call of `fn(xml, action)`, median over rounds; the sink defeats dead-code elimination. */
function perCall(fn, iterations, materialize = false) {
  let sink = 0;
  const round = () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) {
      const out = fn(ERROR_XML, 'create');
      // charCodeAt flattens V8's concatenation rope: the cost of actually producing the bytes.
      sink += materialize ? out.charCodeAt(out.length >> 1) : out.length;
    }
    return Number(process.hrtime.bigint() - start) / iterations;
  };
  round();
  const times = Array.from({ length: ROUNDS }, round);
  if (sink === 42) console.log('');
  return median(times);
}

function bare(errorXml) {
  return errorXml;
}

// --- 1. The no-delta path: identity enhancer vs a bare function call ------------------------
const empty = { activeDeltas: loadDeltaMap(artifact(0, 0)) };
const noDelta = createToolEnhancer('create_order', empty);
if (noDelta !== identityEnhancer) throw new Error('expected the identity enhancer for a tool without deltas');
const CALLS = 3_000_000;
// Interleave the two so machine drift hits both equally.
const bareTimes = [];
const identityTimes = [];
for (let r = 0; r < 5; r += 1) {
  bareTimes.push(perCall(bare, CALLS));
  identityTimes.push(perCall(noDelta, CALLS));
}
const bareNs = median(bareTimes);
const identityNs = median(identityTimes);
const ratio = identityNs / bareNs;

// --- 2. The enriched path, 5 deltas ---------------------------------------------------------
const five = { activeDeltas: loadDeltaMap(artifact(1, 5)) };
const enhance = createToolEnhancer('tool_0000', five);
const enrichedNs = perCall(enhance, 200_000);
const enrichedFlatNs = perCall(enhance, 200_000, true);
const directNs = perCall((xml, action) => enrichValidationError(xml, 'tool_0000', action, five).enrichedError, 20_000);
if (!enhance(ERROR_XML).includes('<contract_awareness')) throw new Error('the enhancer did not inject');

// --- 3. loadDeltaMap of a 1,000-tool artifact -----------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'mcg-bench-'));
const path = join(dir, 'deltas.json');
const big = JSON.stringify(artifact(1000, 5), null, 2);
writeFileSync(path, big);
let loaded;
const loadTimes = Array.from({ length: ROUNDS }, () => {
  const start = process.hrtime.bigint();
  loaded = loadDeltaMap(path);
  return Number(process.hrtime.bigint() - start) / 1e6;
});
const loadMs = median(loadTimes);
const enhancerTimes = Array.from({ length: 5 }, () => {
  const start = process.hrtime.bigint();
  const config = { activeDeltas: loaded };
  for (const name of loaded.keys()) createToolEnhancer(name, config);
  return Number(process.hrtime.bigint() - start) / 1e6;
});
const enhancersMs = median(enhancerTimes);
rmSync(dir, { recursive: true, force: true });

// --- 4. Importing the runtime: what every server embedding it pays at start-up ---------------
const entry = new URL('../lib/runtime/index.js', import.meta.url).href;
const importScript = `const t = process.hrtime.bigint(); await import(${JSON.stringify(entry)}); process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6));`;
const importMs = median(Array.from({ length: 21 }, () => Number(spawnSync(process.execPath, ['--input-type=module', '-e', importScript], { encoding: 'utf8' }).stdout)));

// --- 5. Calls through a real McpServer: direct, the identity path, a routed call -------------
// The artifact renames `quantity` → `qty` and removes `note` on create_order; `check` is a tool
// it says nothing about. A healed server in route mode answers three kinds of call: one to
// `check` (the identity path: one lookup), a new-shaped create_order (scanned for old names,
// none found), and an old-shaped one (translated, with a notice). Each is timed against the
// same call to a server without withSelfHealing, interleaved in rounds so drift hits both.
const renamed = (tool, deltas) => ({ maxSeverity: 'BREAKING', deltas });
const routeArtifact = loadDeltaMap({
  version: 1,
  summary: { maxSeverity: 'BREAKING', counts: { BREAKING: 1, RISKY: 1, SAFE: 0, COSMETIC: 0 } },
  tools: {
    create_order: renamed('create_order', [
      { severity: 'BREAKING', kind: 'property-renamed', field: 'inputSchema.properties.qty', action: null, direction: 'input', message: 'renamed', previous: 'quantity', current: 'qty', fingerprint: 'a'.repeat(16), facts: { sameSchema: true } },
      { severity: 'RISKY', kind: 'property-removed-ignored', field: 'inputSchema.properties.note', action: null, direction: 'input', message: 'removed', previous: { type: 'string' }, current: null, fingerprint: 'b'.repeat(16) },
    ]),
  },
  prompts: {},
  resources: {},
  resourceTemplates: {},
  release: { version: '2.0.0', date: new Date().toISOString().slice(0, 10) },
});

async function server(healed) {
  const mcp = new McpServer({ name: 'bench', version: '2.0.0' });
  mcp.registerTool('create_order', { inputSchema: { sku: z.string(), qty: z.number().int().min(1) } }, async ({ sku, qty }) => ({ content: [{ type: 'text', text: `${qty} ${sku}` }] }));
  mcp.registerTool('check', { inputSchema: { sku: z.string() } }, async ({ sku }) => ({ content: [{ type: 'text', text: sku }] }));
  if (healed) withSelfHealing(mcp, { deltas: routeArtifact, renames: 'route' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1' });
  await mcp.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

const plain = await server(false);
const healedServer = await server(true);
const CALL_ROUNDS = 10;
const CALLS_PER_ROUND = 300;
const calls = {
  identity: { name: 'check', arguments: { sku: 'A-1' } },
  scanned: { name: 'create_order', arguments: { sku: 'A-1', qty: 2 } },
  routed: { name: 'create_order', arguments: { sku: 'A-1', quantity: 2, note: 'gift' } },
};
async function callTime(client, call) {
  const start = process.hrtime.bigint();
  await client.callTool(call);
  return Number(process.hrtime.bigint() - start) / 1e6;
}
const routedOnce = await healedServer.callTool(calls.routed);
if (routedOnce.content.length !== 2 || routedOnce.content[0].text !== '2 A-1') throw new Error(`the routed call was not served: ${JSON.stringify(routedOnce)}`);
// One call of each kind in turn, many times: a busy moment of the machine hits all alike; the
// median of the single calls, so a GC pause does not decide a figure. The first round warms up.
const times = { direct: [], identity: [], directScanned: [], scanned: [], routed: [] };
for (let round = 0; round <= CALL_ROUNDS; round += 1) {
  for (let i = 0; i < CALLS_PER_ROUND; i += 1) {
    const sample = {
      direct: await callTime(plain, calls.identity),
      identity: await callTime(healedServer, calls.identity),
      directScanned: await callTime(plain, calls.scanned),
      scanned: await callTime(healedServer, calls.scanned),
      routed: await callTime(healedServer, calls.routed),
    };
    if (round > 0) for (const [key, value] of Object.entries(sample)) times[key].push(value);
  }
}
const ms = Object.fromEntries(Object.entries(times).map(([key, list]) => [key, median(list)]));
await plain.close();
await healedServer.close();

// The decision alone, on the request path: a tool the artifact knows nothing about, a new-shaped call to one it does.
const router = new CallRouter(routeArtifact, { renames: 'route' });
const decideNs = (name, args) => perCall(() => router.decide(name, args, undefined) ?? '', 2_000_000);
const identityDecideNs = decideNs('check', { sku: 'A-1' });
const scannedDecideNs = decideNs('create_order', { sku: 'A-1', qty: 2 });

// --- Report ---------------------------------------------------------------------------------
const rows = [
  ['bare function call (baseline)', `${bareNs.toFixed(2)} ns/call`, '', ''],
  ['enhancer, no deltas (identity)', `${identityNs.toFixed(2)} ns/call`, '', ''],
  ['  ratio identity / bare', `${ratio.toFixed(3)}×`, '≤ 1.1×', ratio <= 1.1],
  ['enhancer, 5 deltas (splice)', `${(enrichedNs / 1000).toFixed(3)} µs/call`, '< 2 µs', enrichedNs < 2000],
  ['enhancer, 5 deltas (+ flatten bytes)', `${(enrichedFlatNs / 1000).toFixed(3)} µs/call`, '< 2 µs', enrichedFlatNs < 2000],
  ['enrichValidationError, 5 deltas (no pre-compute)', `${(directNs / 1000).toFixed(3)} µs/call`, '(reference)', ''],
  [`loadDeltaMap, 1,000 tools × 5 deltas (${(big.length / 1024).toFixed(0)} KiB)`, `${loadMs.toFixed(2)} ms`, '< 50 ms', loadMs < 50],
  ['createToolEnhancer for all 1,000 tools', `${enhancersMs.toFixed(2)} ms`, '(reference)', ''],
  ['import mcp-contract-guard/runtime (fresh process)', `${importMs.toFixed(2)} ms`, '(reference)', ''],
  ['McpServer call, no withSelfHealing (in memory)', `${(ms.direct * 1000).toFixed(1)} µs/call`, '(reference)', ''],
  ['  same call, healed (route), tool the artifact does not name', `${(ms.identity * 1000).toFixed(1)} µs/call`, '(reference)', ''],
  ['  identity path − direct', `${((ms.identity - ms.direct) * 1000).toFixed(1)} µs`, '≤ 20 µs', ms.identity - ms.direct <= 0.02],
  ['  new-shaped call to a renamed tool, healed − direct', `${((ms.scanned - ms.directScanned) * 1000).toFixed(1)} µs`, '≤ 20 µs', ms.scanned - ms.directScanned <= 0.02],
  ['  routed call (renamed + removed argument) − direct', `${((ms.routed - ms.directScanned) * 1000).toFixed(1)} µs`, '≤ 200 µs', ms.routed - ms.directScanned <= 0.2],
  ['CallRouter.decide, tool not named by the artifact', `${identityDecideNs.toFixed(1)} ns/call`, '(reference)', ''],
  ['CallRouter.decide, new-shaped call to a renamed tool', `${scannedDecideNs.toFixed(1)} ns/call`, '(reference)', ''],
];
printTargets(`mcp-contract-guard/runtime benchmarks (node ${process.version}, median of ${ROUNDS} rounds)`, rows, { strict });
