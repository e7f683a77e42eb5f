// Issue 3 budget: diff of a 1,000-tool server of which 100 tools changed, with realistic nested
// schemas, under 1 s; and, side by side in the same run, what running json-schema-diff on every
// tool pair would cost instead.
import { createRequire } from 'node:module';
import { normalizeCapture } from '../lib/contract/normalize.js';
import { diffContracts } from '../lib/diff/index.js';
import { measureAsync, printTable } from './measure.mjs';
import { random, syntheticTools } from './synthetic.mjs';

const TOOLS = 1000;
const CHANGED = 100;

/** The realistic edits a release makes, applied to every tenth tool (deterministic). */
const EDITS = [
  ['optional argument added', (t) => { t.inputSchema.properties.note_x = { type: 'string', maxLength: 500 }; }],
  ['required argument added', (t) => { t.inputSchema.properties.tenant_x = { type: 'string' }; t.inputSchema.required = [...t.inputSchema.required, 'tenant_x']; }],
  ['description reworded', (t) => { t.description = `${t.description} Results are paginated.`; }],
  ['enum value added', (t) => { t.inputSchema.properties.status_x = { type: 'string', enum: ['open', 'paid', 'void'] }; }],
  ['bound tightened', (t) => { t.inputSchema.definitions.Money.properties.amount.maximum = 1000; }],
  ['nested field widened', (t) => { const p = Object.values(t.outputSchema.properties)[0]; if (p) p.description = 'renamed in docs'; t.inputSchema.definitions.Money.properties.currency.enum.push('GBP'); }],
  ['output field added', (t) => { t.outputSchema.properties.etag_x = { type: 'string' }; }],
  ['now destructive', (t) => { t.annotations = { ...t.annotations, destructiveHint: true, readOnlyHint: false }; }],
  ['argument made nullable', (t) => { t.inputSchema.properties.price = { anyOf: [t.inputSchema.properties.price, { type: 'null' }] }; }],
  ['argument removed', (t) => { const name = Object.keys(t.inputSchema.properties)[0]; delete t.inputSchema.properties[name]; t.inputSchema.required = t.inputSchema.required.filter((r) => r !== name); }],
];

function contractsOf(tools) {
  return normalizeCapture({ server: { name: 'synthetic' }, protocolVersion: '2025-11-25', era: 'legacy', tools, prompts: [], resources: [], resourceTemplates: [] }).contracts;
}

const before = syntheticTools(TOOLS);
const after = structuredClone(before);
const rand = random(7);
for (let i = 0; i < CHANGED; i++) {
  const index = i * (TOOLS / CHANGED) + Math.floor(rand() * (TOOLS / CHANGED));
  EDITS[i % EDITS.length][1](after[index]);
}
const previous = contractsOf(before);
const current = contractsOf(after);

const withCheck = await measureAsync(`diffContracts: ${TOOLS} tools, ${CHANGED} changed (semantic cross-check on)`, 1000, () => diffContracts(previous, current), { runs: 7 });
const walkerOnly = await measureAsync(`diffContracts: ${TOOLS} tools, ${CHANGED} changed (semantic: false)`, 1000, () => diffContracts(previous, current, { semantic: false }), { runs: 7 });
const report = await diffContracts(previous, current);

// The alternative: json-schema-diff on every tool pair (input and output schema), in process.
const jsonSchemaDiff = createRequire(import.meta.url)('json-schema-diff');
const strip = (schema) => { const { $schema: _dialect, ...rest } = schema; return rest; };
let calls = 0;
let failures = 0;
const started = process.hrtime.bigint();
for (const name of Object.keys(previous.tools)) {
  for (const field of ['inputSchema', 'outputSchema']) {
    const p = previous.tools[name].contract[field];
    const c = current.tools[name]?.contract[field];
    if (p === undefined || c === undefined) continue;
    calls++;
    try {
      await jsonSchemaDiff.diffSchemas({ sourceSchema: strip(p), destinationSchema: strip(c) });
    } catch {
      failures++;
    }
  }
}
const everyPairMs = Number(process.hrtime.bigint() - started) / 1e6;

const counts = report.summary.counts;
printTable(`Diff (issue 3): synthetic server of ${TOOLS} tools, ${CHANGED} changed`, [
  withCheck,
  walkerOnly,
  { name: `json-schema-diff on every tool pair (${calls} schema pairs${failures ? `, ${failures} threw` : ''})`, value: `${everyPairMs.toFixed(0).padStart(7)} ms` },
  { name: 'ratio: json-schema-diff on every pair / diffContracts (median)', value: `${(everyPairMs / withCheck.median).toFixed(1)}× slower` },
  { name: 'ratio: json-schema-diff on every pair / diffContracts (first run)', value: `${(everyPairMs / withCheck.first).toFixed(1)}× slower` },
  { name: 'deltas found', value: `${counts.BREAKING} BREAKING, ${counts.RISKY} RISKY, ${counts.SAFE} SAFE, ${counts.COSMETIC} COSMETIC in ${Object.keys(report.tools).length} tools` },
]);
if (!withCheck.ok || withCheck.first > 1000) process.exitCode = 1;
