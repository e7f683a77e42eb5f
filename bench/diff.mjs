// Issue 3 budget: diff of a 1,000-tool server of which 100 tools changed, with realistic nested
// schemas, under 1 s; and, side by side in the same run, what running json-schema-diff on every
// tool pair would cost instead.
import { createRequire } from 'node:module';
import { normalizeCapture } from '../lib/contract/normalize.js';
import { diffContracts } from '../lib/diff/index.js';
import { compareEntry } from '../lib/diff/entries.js';
import { jsonEqual } from '../lib/protocol/json.js';
import { measureAsync, printTable } from './measure.mjs';
import { syntheticRelease } from './synthetic.mjs';

const TOOLS = 1000;
const CHANGED = 100;

function contractsOf(tools) {
  return normalizeCapture({ server: { name: 'synthetic' }, protocolVersion: '2025-11-25', era: 'legacy', tools, prompts: [], resources: [], resourceTemplates: [] }).contracts;
}

const { before, after, edited } = syntheticRelease(TOOLS, CHANGED);
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

// Issue 13: only the schema pairs the keyword walker could not judge exactly go to json-schema-diff.
let changedPairs = 0;
const unsureByEdit = new Map();
for (const [name, edit] of edited) {
  const [p, c] = [previous.tools[name], current.tools[name]];
  for (const field of ['inputSchema', 'outputSchema']) if (!jsonEqual(p.contract[field], c.contract[field])) changedPairs++;
  const unsure = Object.keys(compareEntry('tools', p, c).uncertain).length;
  if (unsure > 0) unsureByEdit.set(edit, (unsureByEdit.get(edit) ?? 0) + unsure);
}
const unsurePairs = [...unsureByEdit.values()].reduce((a, b) => a + b, 0);

const counts = report.summary.counts;
printTable(`Diff (issue 3): synthetic server of ${TOOLS} tools, ${CHANGED} changed`, [
  withCheck,
  walkerOnly,
  { name: `json-schema-diff on every tool pair (${calls} schema pairs${failures ? `, ${failures} threw` : ''})`, value: `${everyPairMs.toFixed(0).padStart(7)} ms` },
  { name: 'ratio: json-schema-diff on every pair / diffContracts (median)', value: `${(everyPairMs / withCheck.median).toFixed(1)}× slower` },
  { name: 'ratio: json-schema-diff on every pair / diffContracts (first run)', value: `${(everyPairMs / withCheck.first).toFixed(1)}× slower` },
  { name: 'schema pairs the walker left to json-schema-diff', value: `${unsurePairs} of ${changedPairs} changed: ${[...unsureByEdit].map(([edit, n]) => `${n} ${edit}`).join(', ') || 'none'}` },
  { name: 'deltas found', value: `${counts.BREAKING} BREAKING, ${counts.RISKY} RISKY, ${counts.SAFE} SAFE, ${counts.COSMETIC} COSMETIC in ${Object.keys(report.tools).length} tools` },
]);
if (!withCheck.ok || withCheck.first > 1000) process.exitCode = 1;
