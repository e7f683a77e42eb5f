// The yardsticks bench/processes.mjs judges mcp-contract-guard against, each run as a process of
// its own (not a benchmark by itself: run.mjs skips it):
//   node bench/references.mjs json-schema-diff OLD NEW   json-schema-diff alone on the schema pairs
//        that differ between two dumps (input and output schemas, as sent), in process: prints the
//        milliseconds of those calls and the number of pairs
//   node bench/references.mjs lockfile-floor LOCKFILE     the floor of `check`: read, parse, hash and
//        serialize the lockfile's bytes, nothing else
//   node bench/references.mjs dumps-floor OLD NEW         the floor of `diff`: read and parse the two
//        dumps, nothing else
//   node bench/references.mjs engine-floor OLD NEW        the same, after loading the code `diff`
//        loads (its command module and all it imports): the least any run of this engine can
//        take, before it normalizes, compares or reports anything
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const [mode, ...paths] = process.argv.slice(2);

if (mode === 'json-schema-diff') {
  const jsonSchemaDiff = createRequire(import.meta.url)('json-schema-diff');
  const [before, after] = paths.map((path) => JSON.parse(readFileSync(path, 'utf8')).tools);
  const current = new Map(after.map((tool) => [tool.name, tool]));
  const pairs = [];
  for (const tool of before) {
    for (const field of ['inputSchema', 'outputSchema']) {
      const [p, c] = [tool[field], current.get(tool.name)?.[field]];
      if (p !== undefined && c !== undefined && JSON.stringify(p) !== JSON.stringify(c)) pairs.push([p, c]);
    }
  }
  // json-schema-diff's public API rejects a declared dialect it does not know; the schemas are otherwise as sent.
  const withoutDialect = ({ $schema: _dialect, ...schema }) => schema;
  const started = process.hrtime.bigint();
  for (const [p, c] of pairs) await jsonSchemaDiff.diffSchemas({ sourceSchema: withoutDialect(p), destinationSchema: withoutDialect(c) });
  console.log(`${Number(process.hrtime.bigint() - started) / 1e6} ${pairs.length}`);
} else if (mode === 'lockfile-floor') {
  const text = readFileSync(paths[0], 'utf8');
  const data = JSON.parse(text);
  const digest = createHash('sha256').update(text).digest('hex');
  const written = `${JSON.stringify(data, null, 2)}\n`;
  if (digest.length === 0 || written.length === 0) process.exitCode = 1;
} else if (mode === 'dumps-floor' || mode === 'engine-floor') {
  if (mode === 'engine-floor') await import(new URL('../lib/cli/diff-command.js', import.meta.url).href);
  const dumps = paths.map((path) => JSON.parse(readFileSync(path, 'utf8')));
  if (!dumps.every((dump) => Array.isArray(dump.tools))) process.exitCode = 1;
} else {
  console.error('usage: node bench/references.mjs json-schema-diff OLD NEW | lockfile-floor LOCKFILE | dumps-floor OLD NEW | engine-floor OLD NEW');
  process.exitCode = 2;
}
