// `npm run bench`: every benchmark, each in its own process so none warms the JIT for another.
// Benchmarks print their own tables; this exits non-zero if any of them failed to run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const helpers = new Set(['run.mjs', 'measure.mjs', 'synthetic.mjs', 'references.mjs']);
const benches = readdirSync(dir).filter((f) => f.endsWith('.mjs') && !helpers.has(f)).sort();

let failed = 0;
for (const bench of benches) {
  const result = spawnSync(process.execPath, [`${dir}${bench}`], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n${bench} failed (exit ${result.status})`);
    failed++;
  }
}
process.exit(failed === 0 ? 0 : 1);
