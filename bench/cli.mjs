// Issue 13 budget: `mcp-contract-guard --help` costs at most 1.5× a bare `node -e 0` (each
// command loads only what it needs). Whole processes, spawn to exit, runs alternated so a
// drifting machine moves both; medians side by side. Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RUNNER_ENV, binOf, printTable } from './measure.mjs';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const CLI = binOf(ROOT);
const RUNS = Number(process.env.RUNS ?? 21);
const MAX_RATIO = 1.5;

if (!existsSync(CLI)) {
  console.error(`${CLI} is missing: run \`npm run build\` first.`);
  process.exit(2);
}

const cases = [
  ['node -e 0 (the floor: Node itself)', ['-e', '0']],
  ['mcp-contract-guard --help', [CLI, '--help']],
  ['mcp-contract-guard --version', [CLI, '--version']],
  ['mcp-contract-guard diff --help', [CLI, 'diff', '--help']],
];

function wallMs(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env: RUNNER_ENV, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const times = cases.map(() => []);
for (const [, args] of cases) wallMs(args); // warm the file cache, uncounted
for (let run = 0; run < RUNS; run++) cases.forEach(([, args], i) => times[i].push(wallMs(args)));

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const floor = median(times[0]);
const rows = cases.map(([name], i) => {
  const ms = median(times[i]);
  const ratio = ms / floor;
  const verdict = i === 0 ? '' : `  ${ratio.toFixed(2)}× the floor (budget ${MAX_RATIO}×) ${ratio <= MAX_RATIO ? 'ok' : 'OVER BUDGET'}`;
  return { name, value: `median ${ms.toFixed(1).padStart(6)} ms${verdict}`, ok: i === 0 || ratio <= MAX_RATIO };
});
printTable(`CLI start-up (${RUNS} runs each, alternated, Node ${process.versions.node}, whole processes)`, rows);
if (rows.some((row) => !row.ok)) process.exitCode = 1;
