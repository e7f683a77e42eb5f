// Issue 13 targets, as whole processes (spawn to exit: start-up, module loading and reading the
// files included), side by side with the yardsticks they are judged against, measured in the same
// run. Rounds alternate every case, so a machine whose load drifts slows them alike; figures are
// medians. Build first (`npm run build`).
//   node bench/processes.mjs [--runs N] [--baseline DIR] [--strict]
// --baseline DIR  also times the same commands with another built checkout (its package's bin), e.g.
//                 main, for a before/after table from one run.
// Peak memory is the largest resident set of the process, as GNU time (/usr/bin/time) reports it;
// without it, peaks are not shown. The closest MCP peer, `mcpdiff` (mcp-contracts), is timed on the
// same dumps (in its own snapshot format) when it is on PATH or MCPDIFF names it; this bench never
// installs it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNNER_ENV, binOf, option, printTargets } from './measure.mjs';
import { findPeer, peerSnapshot } from './peer.mjs';
import { nestedUnions, syntheticRelease } from './synthetic.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(option('--runs') ?? 5);
const BASELINE = option('--baseline');
const strict = process.argv.includes('--strict');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

const cliOf = binOf;
for (const root of [ROOT, BASELINE].filter(Boolean)) {
  if (!existsSync(cliOf(root))) {
    console.error(`${cliOf(root)} is missing: run \`npm run build\` there first.`);
    process.exit(2);
  }
}

const peer = findPeer();

// ── the data ──────────────────────────────────────────────────────────────────────────────
const scratch = mkdtempSync(join(tmpdir(), 'mcg-bench-'));
const file = (name, value) => {
  const path = join(scratch, name);
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
};

/** Two dumps of a release (as a capture tool writes them) and, for the peer, the same as its snapshots. */
function release(count, changed) {
  const { before, after } = syntheticRelease(count, changed);
  const name = `${count}-${changed}`;
  return {
    before: file(`before-${name}.json`, { tools: before }),
    after: file(`after-${name}.json`, { tools: after }),
    peer: [file(`before-${name}.mcpc.json`, peerSnapshot(before)), file(`after-${name}.mcpc.json`, peerSnapshot(after))],
  };
}

const thousand = release(1000, 100);
const tenThousand = release(10_000, 1000);
const fewOfTenThousand = release(10_000, 100);
const deep = [6, 7, 8].map((depth) => ({
  depth,
  before: file(`deep-${depth}-before.json`, { tools: [{ name: 'deep', inputSchema: nestedUnions(depth, 3, 10) }] }),
  after: file(`deep-${depth}-after.json`, { tools: [{ name: 'deep', inputSchema: nestedUnions(depth, 3, 5) }] }),
}));
const lockfile = join(scratch, 'mcp-contracts.lock.json');
spawnSync(process.execPath, [cliOf(ROOT), 'lock', '--file', thousand.before, '--lockfile', lockfile, '--quiet'], { stdio: 'inherit', env: RUNNER_ENV });

// ── the cases ─────────────────────────────────────────────────────────────────────────────
const node = (...args) => [process.execPath, ...args];
/** Each checkout's commands; diff exits 1 on a BREAKING change, as it should here. */
const commands = (root, label) => [
  { id: `${label}diff-1k`, argv: node(cliOf(root), 'diff', '--format', 'json', '--quiet', thousand.before, thousand.after), exits: [1] },
  { id: `${label}check-1k`, argv: node(cliOf(root), 'check', '--quiet', '--file', thousand.before, '--lockfile', lockfile), exits: [0] },
  { id: `${label}diff-10k`, argv: node(cliOf(root), 'diff', '--format', 'json', '--quiet', tenThousand.before, tenThousand.after), exits: [1] },
  { id: `${label}diff-100-of-10k`, argv: node(cliOf(root), 'diff', '--format', 'json', '--quiet', fewOfTenThousand.before, fewOfTenThousand.after), exits: [1] },
  ...deep.map((d) => ({ id: `${label}deep-${d.depth}`, argv: node(cliOf(root), 'diff', '--format', 'json', '--quiet', d.before, d.after), exits: [1] })),
];
const references = join(ROOT, 'bench/references.mjs');
const cases = [
  { id: 'node', argv: node('-e', '0'), exits: [0] },
  { id: 'json-schema-diff', argv: node(references, 'json-schema-diff', thousand.before, thousand.after), exits: [0], reports: true },
  { id: 'floor', argv: node(references, 'lockfile-floor', lockfile), exits: [0] },
  { id: 'dumps-floor', argv: node(references, 'dumps-floor', thousand.before, thousand.after), exits: [0] },
  { id: 'engine-floor', argv: node(references, 'engine-floor', thousand.before, thousand.after), exits: [0] },
  ...commands(ROOT, ''),
  ...(BASELINE ? commands(BASELINE, 'baseline ') : []),
  ...(peer ? [{ id: 'peer-1k', argv: [peer, '--format', 'json', 'diff', ...thousand.peer], exits: [0, 1] }] : []),
];

/** One whole process: wall time from spawn to exit, peak resident memory, and what it printed when asked. */
function measure({ argv, exits, reports }) {
  const timeFile = join(scratch, 'time.txt');
  const command = TIME ? [TIME, '-f', '%M', '-o', timeFile, ...argv] : argv;
  const started = process.hrtime.bigint();
  const result = spawnSync(command[0], command.slice(1), { env: RUNNER_ENV, stdio: ['ignore', reports ? 'pipe' : 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.error || !exits.includes(result.status)) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.error?.message ?? result.stderr.slice(0, 500)}`);
  // GNU time writes a line about a non-zero exit before the figure.
  const peakMiB = TIME ? Number(readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)) / 1024 : null;
  return { ms, peakMiB, stdout: result.stdout };
}

const samples = new Map(cases.map((c) => [c.id, []]));
for (const c of cases) measure(c); // warm the file cache, uncounted
for (let round = 0; round < RUNS; round++) for (const c of cases) samples.get(c.id).push(measure(c));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (id) => median(samples.get(id).map((s) => s.ms));
const peak = (id) => (TIME ? median(samples.get(id).map((s) => s.peakMiB)) : null);
const has = (id) => samples.has(id);
const jsdMs = median(samples.get('json-schema-diff').map((s) => Number(s.stdout.split(' ')[0])));
const jsdPairs = Number(samples.get('json-schema-diff')[0].stdout.split(' ')[1]);
const seconds = (value) => `${(value / 1000).toFixed(2)} s`;
const mib = (id) => (peak(id) === null ? '' : `, ${peak(id).toFixed(0)} MiB peak`);
const kib = (path) => `${(statSync(path).size / 1024).toFixed(0)} KiB`;

// ── the table ─────────────────────────────────────────────────────────────────────────────
const rows = [];
const pair = (label, id, target, ok) => {
  rows.push([label, `${seconds(ms(id))}${mib(id)}`, target, ok]);
  if (has(`baseline ${id}`)) rows.push([`  baseline (${BASELINE})`, `${seconds(ms(`baseline ${id}`))}${mib(`baseline ${id}`)}`, '(before)', '']);
};
const floorMs = ms('node');
rows.push(['node -e 0 (Node itself)', seconds(floorMs), '(reference)', '']);
rows.push([`json-schema-diff alone on the ${jsdPairs} changed schema pairs (in process)`, seconds(jsdMs), '(reference)', '']);

const diffRatio = ms('diff-1k') / jsdMs;
rows.push(['read and parse the two 1,000-tool dumps (the floor of diff)', `${seconds(ms('dumps-floor'))}${mib('dumps-floor')}`, '(reference)', '']);
pair('diff --format json, 1,000 tools, 100 changed', 'diff-1k', '(see the next three rows)', '');
rows.push(['  / the floor of diff', `${(ms('diff-1k') / ms('dumps-floor')).toFixed(2)}×`, '(reference)', '']);
rows.push(['  / json-schema-diff on the changed pairs', `${diffRatio.toFixed(3)}×`, '≤ 0.15×', diffRatio <= 0.15]);
// What the target leaves for the work itself: a diff must load its code and read both dumps.
rows.push(['  of which: load diff\'s code, read and parse the dumps, no work', `${seconds(ms('engine-floor'))}${mib('engine-floor')}`, '(reference)', '']);
rows.push(['    / json-schema-diff on the changed pairs', `${(ms('engine-floor') / jsdMs).toFixed(3)}×`, '(reference)', '']);
if (TIME) rows.push(['  peak memory', `${peak('diff-1k').toFixed(0)} MiB`, '≤ 150 MiB', peak('diff-1k') <= 150]);
if (peer) {
  rows.push([`mcpdiff (mcp-contracts), same dumps`, `${seconds(ms('peer-1k'))}${mib('peer-1k')}`, '(reference)', '']);
  rows.push(['  / json-schema-diff on the changed pairs', `${(ms('peer-1k') / jsdMs).toFixed(3)}×`, '(reference)', '']);
  rows.push(['  mcp-contract-guard diff / mcpdiff diff', `${(ms('diff-1k') / ms('peer-1k')).toFixed(2)}×`, '(reference)', '']);
} else {
  rows.push(['mcpdiff (mcp-contracts)', 'not installed: put it on PATH or set MCPDIFF', '(reference)', '']);
}

const checkRatio = ms('check-1k') / ms('floor');
rows.push(['read, parse, hash and serialize the 1,000-tool lockfile (the floor)', `${seconds(ms('floor'))}${mib('floor')}`, '(reference)', '']);
pair('check, unchanged 1,000-tool server (a dump)', 'check-1k', '(see the next row)', '');
rows.push(['  / the floor', `${checkRatio.toFixed(2)}×`, '≤ 2×', checkRatio <= 2]);

// Linear growth: the work beyond Node's own start-up, per 1,000 tools.
const perThousand = (id, tools) => (ms(id) - floorMs) / (tools / 1000);
const growth = perThousand('diff-10k', 10_000) / perThousand('diff-1k', 1000);
pair('diff, 10,000 tools, 1,000 changed', 'diff-10k', '(see the next row)', '');
rows.push(['  work per 1,000 tools / that of the 1,000-tool case', `${growth.toFixed(2)}×`, '≤ 1.5× (linear)', growth <= 1.5]);
pair('diff, 10,000 tools, 100 changed', 'diff-100-of-10k', `≤ the 1,000-changed case`, ms('diff-100-of-10k') <= ms('diff-10k'));

for (const d of deep) pair(`diff, unions nested ${d.depth} deep, 3 variants each (${kib(d.before)})`, `deep-${d.depth}`, '≤ 15 s', ms(`deep-${d.depth}`) <= 15_000);
const perKib = (d) => (ms(`deep-${d.depth}`) - floorMs) / statSync(d.before).size;
const deepGrowth = perKib(deep.at(-1)) / perKib(deep[0]);
rows.push(['  work per KiB, 8 deep / 6 deep', `${deepGrowth.toFixed(2)}×`, '≤ 2× (about linear)', deepGrowth <= 2]);

const load = loadavg()[0].toFixed(1);
printTargets(
  `\nWhole processes (issue 13): node ${process.version}, ${availableParallelism()} cores, load ${load} at the end, medians of ${RUNS} alternated runs${TIME ? '' : ' (no /usr/bin/time: peaks not measured)'}`,
  rows,
  { strict },
);
rmSync(scratch, { recursive: true, force: true });
