// Benchmarks of mcp-contract-guard/runtime (issue 5), against the compiled lib/runtime:
//   node bench/runtime.mjs            print the table
//   node bench/runtime.mjs --strict   also exit 1 when a target is missed
// Build first (`npm run build`). Timings are medians of several rounds, after a warm-up, so one
// GC pause or JIT tier-up does not decide a figure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolEnhancer, enrichValidationError, identityEnhancer, loadDeltaMap } from '../lib/runtime/index.js';
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
];
printTargets(`mcp-contract-guard/runtime benchmarks (node ${process.version}, median of ${ROUNDS} rounds)`, rows, { strict });
