// Timing helpers shared by the benchmarks: the first run (what one CLI invocation pays, before
// the JIT warms up) and the median of the following runs, checked against a budget.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The value after `name` on the command line (`--runs 15`), or undefined when it is not given. */
export function option(name) {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

/**
 * The environment whole-process benchmarks run their commands in: this one, as a GitHub runner
 * has it. Without NODE_EXTRA_CA_CERTS: where it is set (this machine sets it), Node reads and
 * parses the certificates at every start, some 50 ms before running any code (26 ms → 80 ms for
 * `node -e 0` here); that inflates every floor and hides the share of the cost that is ours.
 */
export const RUNNER_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_EXTRA_CA_CERTS'));

/** The CLI a checkout's package runs (its package.json `bin`): what a user's command starts. */
export function binOf(root) {
  const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return join(root, typeof bin === 'string' ? bin : Object.values(bin)[0]);
}

/** `setup()` runs before each timed call, untimed; its result is passed to `fn`. */
export function measure(name, budgetMs, fn, { runs = 15, setup = () => undefined } = {}) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const input = setup();
    const start = process.hrtime.bigint();
    fn(input);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return summarize(name, budgetMs, times);
}

export async function measureAsync(name, budgetMs, fn, { runs = 10, setup = () => undefined } = {}) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const input = await setup();
    const start = process.hrtime.bigint();
    await fn(input);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return summarize(name, budgetMs, times);
}

function summarize(name, budgetMs, times) {
  const first = times[0];
  const rest = times.slice(1).sort((a, b) => a - b);
  const median = rest[Math.floor(rest.length / 2)] ?? first;
  return { name, first, median, budgetMs, ok: median <= budgetMs };
}

export function printTable(title, rows) {
  console.log(`\n${title}`);
  for (const row of rows) {
    if ('value' in row) {
      console.log(`  ${row.name.padEnd(60)} ${row.value}`);
      continue;
    }
    const verdict = row.ok ? 'ok' : 'OVER BUDGET';
    console.log(
      `  ${row.name.padEnd(60)} median ${fmt(row.median)}   first run ${fmt(row.first)}   budget ${String(row.budgetMs).padStart(5)} ms   ${verdict}`,
    );
  }
}

function fmt(ms) {
  return `${ms.toFixed(1).padStart(7)} ms`;
}

/**
 * Rows of [case, result, target, ok] (ok: true, false, or '' for a reference figure) as a
 * markdown table; with `strict`, a missed target sets a failing exit code.
 */
export function printTargets(title, rows, { strict = false } = {}) {
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((row) => String(row[c]).length), ['case', 'result', 'target'][c].length));
  const line = (cells) => `| ${cells.map((cell, c) => String(cell).padEnd(widths[c] ?? 4)).join(' | ')} |`;
  console.log(`${title}\n`);
  console.log(line(['case', 'result', 'target', 'ok  ']));
  console.log(line(widths.map((w) => '-'.repeat(w)).concat('----')));
  for (const [name, result, target, ok] of rows) console.log(line([name, result, target, ok === '' ? '' : ok ? 'PASS' : 'MISS']));
  const missed = rows.filter((row) => row[3] === false);
  if (missed.length > 0) {
    console.log(`\n${missed.length} target(s) missed.`);
    if (strict) process.exitCode = 1;
  }
}
