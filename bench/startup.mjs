// Issue 26 targets: what a command costs beyond Node itself and beyond reading its input, as
// whole processes (spawn to exit, start-up included), each case against its floor measured in the
// same run. Rounds alternate every case, so a machine whose load drifts slows them alike; figures
// are medians. Runs the package's bin (package.json `bin`) and imports its runtime by name, as a
// user does: build first (`npm run build`).
//   node bench/startup.mjs [--runs N] [--baseline DIR] [--strict]
// --baseline DIR  also times the same cases with another built checkout (its own bin and runtime
//                 export), e.g. main, for a before/after table from one run.
// Peak memory and CPU time (user + system) are GNU time's (/usr/bin/time). The targets are on wall
// time; the CPU ratios beside them hold better on a busy machine, where waiting for a core
// lengthens every wall time. Commands run in RUNNER_ENV (measure.mjs): without NODE_EXTRA_CA_CERTS.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNNER_ENV, binOf, option, printTargets } from './measure.mjs';
import { findPeer, peerSnapshot } from './peer.mjs';
import { syntheticRelease } from './synthetic.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(option('--runs') ?? 11);
const BASELINE = option('--baseline');
const strict = process.argv.includes('--strict');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

for (const root of [ROOT, BASELINE].filter(Boolean)) {
  if (!existsSync(binOf(root))) {
    console.error(`${binOf(root)} is missing: run \`npm run build\` there first.`);
    process.exit(2);
  }
}

// ── the data ──────────────────────────────────────────────────────────────────────────────
const scratch = mkdtempSync(join(tmpdir(), 'mcg-bench-startup-'));
const file = (name, value) => {
  const path = join(scratch, name);
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
};
const realWorld = (name) => join(ROOT, 'test/fixtures/real-world', name);
/** A real release: server-everything 2025.9.12 → 2026.7.4 (10 → 13 tools, 100 → 7 resources; renames, new tools, schema edits). */
const release = [realWorld('server-everything@2025.9.12.json'), realWorld('server-everything@2026.7.4.json')];
const { before, after } = syntheticRelease(1000, 100);
const thousand = [file('before-1k.json', { tools: before }), file('after-1k.json', { tools: after })];
const tiny = file('tiny.json', { tools: before.slice(0, 1) });
/** The peer, when installed (bench/peer.mjs), on the same tools in its snapshot format. */
const peer = findPeer();
const toolsOf = (path) => JSON.parse(readFileSync(path, 'utf8')).tools;
const peerRelease = release.map((path, i) => file(`release-${i}.mcpc.json`, peerSnapshot(toolsOf(path))));
const peerThousand = [file('before-1k.mcpc.json', peerSnapshot(before)), file('after-1k.mcpc.json', peerSnapshot(after))];
const lockfile = join(scratch, 'mcp-contracts.lock.json');
spawnSync(process.execPath, [binOf(ROOT), 'lock', '--file', thousand[0], '--lockfile', lockfile, '--quiet'], { stdio: 'inherit', env: RUNNER_ENV });
/** A server without an SDK; the shell notes when it starts (ns since the epoch), to tell the proxy's share before it from after. */
const serverStartedFile = join(scratch, 'server-started.txt');
const SERVER = ['/bin/sh', '-c', `date +%s%N > '${serverStartedFile}'; exec '${process.execPath}' '${join(ROOT, 'test/fixtures/servers/raw-inventory.mjs')}'`];

// ── the cases ─────────────────────────────────────────────────────────────────────────────
const node = (...args) => [process.execPath, ...args];
const references = join(ROOT, 'bench/references.mjs');
const RUNTIME_IMPORT = "const t = performance.now(); await import('mcp-contract-guard/runtime'); process.stdout.write(String(performance.now() - t));";

/** Each checkout's cases; diff exits 1 on a BREAKING change, as it should here. */
const commands = (root, label) => [
  { id: `${label}help`, argv: node(binOf(root), '--help'), exits: [0] },
  { id: `${label}identical`, argv: node(binOf(root), 'diff', tiny, tiny), exits: [0] },
  { id: `${label}release`, argv: node(binOf(root), 'diff', ...release), exits: [1] },
  { id: `${label}diff-1k`, argv: node(binOf(root), 'diff', '--format', 'json', '--quiet', ...thousand), exits: [1] },
  { id: `${label}check-1k`, argv: node(binOf(root), 'check', '--quiet', '--file', thousand[0], '--lockfile', lockfile), exits: [0] },
  { id: `${label}runtime`, argv: node('--input-type=module', '-e', RUNTIME_IMPORT), cwd: root, exits: [0], reports: true },
  { id: `${label}proxy-ready`, ready: [...node(binOf(root), 'proxy', '--'), ...SERVER] },
];
const cases = [
  { id: 'node', argv: node('-e', '0'), exits: [0] },
  { id: 'identical-floor', argv: node(references, 'dumps-floor', tiny, tiny), exits: [0] },
  { id: 'release-floor', argv: node(references, 'dumps-floor', ...release), exits: [0] },
  { id: 'dumps-floor', argv: node(references, 'dumps-floor', ...thousand), exits: [0] },
  { id: 'lockfile-floor', argv: node(references, 'lockfile-floor', lockfile), exits: [0] },
  { id: 'server-ready', ready: SERVER },
  ...(peer
    ? [
        { id: 'peer-release', argv: [peer, 'diff', ...peerRelease], exits: [0, 1] },
        { id: 'peer-diff-1k', argv: [peer, '--format', 'json', 'diff', ...peerThousand], exits: [0, 1] },
      ]
    : []),
  ...commands(ROOT, ''),
  ...(BASELINE ? commands(BASELINE, 'baseline ') : []),
];

/** One whole process: wall time from spawn to exit, peak resident memory, CPU time, and what it printed when asked. */
function run({ argv, exits, reports, cwd = ROOT }) {
  const timeFile = join(scratch, 'time.txt');
  const command = TIME ? [TIME, '-f', '%M %U %S', '-o', timeFile, ...argv] : argv;
  const started = process.hrtime.bigint();
  const result = spawnSync(command[0], command.slice(1), { cwd, env: RUNNER_ENV, stdio: ['ignore', reports ? 'pipe' : 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.error || !exits.includes(result.status)) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.error?.message ?? result.stderr.slice(0, 500)}`);
  // GNU time writes a line about a non-zero exit before the figures.
  const [kib, user, system] = TIME ? readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number) : [];
  return { ms: reports ? Number(result.stdout) : ms, peakMiB: TIME ? kib / 1024 : null, cpuMs: TIME ? (user + system) * 1000 : null };
}

/**
 * A server (or the proxy before one) as a client starts it: spawn, send initialize at once, time
 * the answer; `beforeServerMs` is how long after the spawn the server itself started.
 */
function ready({ ready: argv }) {
  return new Promise((resolve, reject) => {
    const spawnedAt = performance.timeOrigin + performance.now();
    const started = process.hrtime.bigint();
    const child = spawn(argv[0], argv.slice(1), { cwd: ROOT, env: RUNNER_ENV, stdio: ['pipe', 'pipe', 'ignore'] });
    let ms;
    let buffer = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      buffer += chunk;
      if (ms === undefined && buffer.includes('\n')) {
        ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (!buffer.includes('"result"')) reject(new Error(`${argv.join(' ')} answered initialize with ${buffer.slice(0, 300)}`));
        child.stdin.end();
      }
    });
    child.once('error', reject);
    child.once('exit', () => {
      if (ms === undefined) return reject(new Error(`${argv.join(' ')} exited before answering initialize`));
      const beforeServerMs = Number(readFileSync(serverStartedFile, 'utf8').trim()) / 1e6 - spawnedAt;
      resolve({ ms, beforeServerMs, peakMiB: null, cpuMs: null });
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`);
  });
}

const measure = (c) => (c.ready ? ready(c) : run(c));
const samples = new Map(cases.map((c) => [c.id, []]));
for (const c of cases) await measure(c); // warm the file cache (and a compile cache), uncounted
for (let round = 0; round < RUNS; round++) for (const c of cases) samples.get(c.id).push(await measure(c));
rmSync(scratch, { recursive: true, force: true });

// ── the table ─────────────────────────────────────────────────────────────────────────────
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (id) => median(samples.get(id).map((s) => s.ms));
const peak = (id) => (TIME ? median(samples.get(id).map((s) => s.peakMiB)) : null);
const cpu = (id) => (TIME ? median(samples.get(id).map((s) => s.cpuMs)) : null);
const shown = (id) => `${ms(id).toFixed(0)} ms${peak(id) === null ? '' : `, ${peak(id).toFixed(0)} MiB`}`;
const rows = [];
/** A case against its floor: the ratio is the target; a baseline's ratio follows it. */
const ratio = (label, id, floorId, limit) => {
  const cpuRatio = (of) => (TIME ? `; CPU ${(cpu(of) / cpu(floorId)).toFixed(2)}×` : '');
  const value = ms(id) / ms(floorId);
  rows.push([label, `${shown(id)}: ${value.toFixed(2)}× ${ms(floorId).toFixed(0)} ms${cpuRatio(id)}`, `≤ ${limit}×`, value <= limit]);
  if (samples.has(`baseline ${id}`)) rows.push([`  baseline (${BASELINE})`, `${shown(`baseline ${id}`)}: ${(ms(`baseline ${id}`) / ms(floorId)).toFixed(2)}×${cpuRatio(`baseline ${id}`)}`, '(before)', '']);
};
const absolute = (label, id, limit, value = ms(id), baseline = samples.has(`baseline ${id}`) ? ms(`baseline ${id}`) : undefined) => {
  rows.push([label, `${value.toFixed(1)} ms`, `≤ ${limit} ms`, value <= limit]);
  if (baseline !== undefined) rows.push([`  baseline (${BASELINE})`, `${baseline.toFixed(1)} ms`, '(before)', '']);
};

rows.push(['node -e 0 (Node itself)', shown('node'), '(reference)', '']);
ratio('--help / node -e 0', 'help', 'node', 1.3);
ratio('diff of two identical 1-tool dumps / reading them', 'identical', 'identical-floor', 1.15);
ratio('diff of a real release (server-everything, 13 tools) / reading it', 'release', 'release-floor', 1.15);
ratio('diff --format json, 1,000 tools, 100 changed / reading them', 'diff-1k', 'dumps-floor', 1.25);
ratio('check, unchanged 1,000-tool server / the lockfile read, parsed, hashed, written', 'check-1k', 'lockfile-floor', 1.5);
if (peer) {
  for (const [id, floorId, label] of [['release', 'release-floor', 'the real release'], ['diff-1k', 'dumps-floor', '1,000 tools, 100 changed']]) {
    rows.push([`mcpdiff (mcp-contracts) on ${label}, its tools only`, `${shown(`peer-${id}`)}: ${(ms(`peer-${id}`) / ms(floorId)).toFixed(2)}× the floor; we take ${(ms(id) / ms(`peer-${id}`)).toFixed(2)}× its time`, '(reference)', '']);
  }
} else rows.push(['mcpdiff (mcp-contracts)', 'not installed: put it on PATH or set MCPDIFF', '(reference)', '']);
for (const id of ['diff-1k', 'check-1k']) {
  if (TIME) rows.push([`  ${id}: peak memory`, `${peak(id).toFixed(0)} MiB`, '≤ 120 MiB', peak(id) <= 120]);
}
rows.push(['the server alone: initialize answered', `${ms('server-ready').toFixed(0)} ms`, '(reference)', '']);
absolute('  through the proxy: later by', 'proxy-ready', 50, ms('proxy-ready') - ms('server-ready'), samples.has('baseline proxy-ready') ? ms('baseline proxy-ready') - ms('server-ready') : undefined);
// Before the server starts: the proxy's own Node, its code up to the spawn, the supervisor; after: what the relay adds.
const beforeServer = (id) => median(samples.get(id).map((s) => s.beforeServerMs));
for (const label of ['', ...(BASELINE ? ['baseline '] : [])]) {
  const id = `${label}proxy-ready`;
  const after = ms(id) - beforeServer(id) - (ms('server-ready') - beforeServer('server-ready'));
  rows.push([`    ${label === '' ? '' : `baseline (${BASELINE}): `}before the server starts / after it`, `${beforeServer(id).toFixed(0)} ms / ${after.toFixed(0)} ms`, '(reference)', '']);
}
absolute("import('mcp-contract-guard/runtime'), in a new process", 'runtime', 15);

printTargets(
  `\nStart-up and floors (issue 26): node ${process.version}, ${availableParallelism()} cores, load ${loadavg()[0].toFixed(1)} at the end, medians of ${RUNS} alternated runs`,
  rows,
  { strict },
);
