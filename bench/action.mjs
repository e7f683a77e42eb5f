// Benchmark of the GitHub Action bundle: cold start of `node dist/index.js` to its first log
// line (budget 300 ms), next to a bare `node` as the floor, and the size of what is committed.
// Run `npm run build:action` first; `node bench/action.mjs`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { printTable } from './measure.mjs';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const DIST = join(ROOT, 'dist/index.js');
const RUNS = Number(process.env.RUNS ?? 15);
const BUDGET_MS = 300;

if (!existsSync(DIST)) {
  console.error('dist/index.js is missing: run `npm run build:action` first.');
  process.exit(2);
}

/** Milliseconds from spawning `args` to the first complete line on stdout; the process is then left to finish. */
function timeToFirstLine(args, env) {
  return new Promise((done, fail) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let seen = '';
    let first;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      seen += chunk;
      if (first === undefined && seen.includes('\n')) first = Number(process.hrtime.bigint() - start) / 1e6;
    });
    child.on('error', fail);
    child.on('close', () => (first === undefined ? fail(new Error(`no output from ${args.join(' ')}`)) : done({ ms: first, line: seen.split('\n')[0] })));
  });
}

async function series(name, args, env, budgetMs) {
  const times = [];
  let line = '';
  for (let i = 0; i < RUNS; i++) {
    const result = await timeToFirstLine(args, env);
    times.push(result.ms);
    line = result.line;
  }
  const first = times[0];
  const rest = times.slice(1).sort((a, b) => a - b);
  const median = rest[Math.floor(rest.length / 2)] ?? first;
  return { row: { name, first, median, budgetMs, ok: typeof budgetMs !== 'number' || median <= budgetMs }, line };
}

// A runner's environment for a push event, with no server configured: the Action logs its first
// line, then stops on the missing input. Only the time to the first line is measured.
const scratch = mkdtempSync(join(tmpdir(), 'mcg-bench-'));
const eventPath = join(scratch, 'event.json');
writeFileSync(eventPath, JSON.stringify({ before: '0'.repeat(40), after: 'f'.repeat(40) }));
writeFileSync(join(scratch, 'output'), '');
writeFileSync(join(scratch, 'summary'), '');
const env = {
  PATH: process.env.PATH,
  GITHUB_ACTIONS: 'true',
  GITHUB_EVENT_NAME: 'push',
  GITHUB_EVENT_PATH: eventPath,
  GITHUB_REPOSITORY: 'acme/tools',
  GITHUB_SHA: 'f'.repeat(40),
  GITHUB_JOB: 'bench',
  GITHUB_WORKSPACE: scratch,
  GITHUB_OUTPUT: join(scratch, 'output'),
  GITHUB_STEP_SUMMARY: join(scratch, 'summary'),
  RUNNER_TEMP: scratch,
};

const floor = await series('node -e "console.log(1)" (the floor: Node itself)', ['-e', 'console.log(1)'], env, '–');
const action = await series('node dist/index.js: spawn → first log line', [DIST], env, BUDGET_MS);

const bundle = readFileSync(DIST);
const files = ['index.js', 'licenses.txt', 'package.json'].map((f) => join(ROOT, 'dist', f)).filter(existsSync);
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;

printTable(`Action cold start (${RUNS} runs each, Node ${process.versions.node}, median of runs 2…${RUNS})`, [floor.row, action.row]);
printTable('Action bundle', [
  { name: 'dist/index.js', value: `${kib(bundle.length)} (${kib(gzipSync(bundle).length)} gzipped)` },
  { name: 'dist/ in all (what the repository commits)', value: kib(files.reduce((sum, f) => sum + statSync(f).size, 0)) },
  { name: 'first log line', value: JSON.stringify(action.line) },
]);
rmSync(scratch, { recursive: true, force: true });
if (!action.row.ok) process.exitCode = 1;
