/**
 * Schemas a pull request or a server may send to make the diff hang: through the CLI as a
 * process, each finishes well inside the test's time limit with a verdict.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mcg-hostile-schemas-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Unions `depth` deep, `width` objects each: width^depth leaves, every one narrowed. */
function nestedUnions(depth: number, width: number, maxLength: number): Record<string, unknown> {
  const nest = (level: number): Record<string, unknown> =>
    level === 0 ? { type: 'string', maxLength } : { anyOf: Array.from({ length: width }, (_, i) => ({ type: 'object', properties: { [`k${i}`]: nest(level - 1) }, required: [`k${i}`] })) };
  return { type: 'object', properties: { x: nest(depth) } };
}

function dump(name: string, inputSchema: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ tools: [{ name: 'deep', inputSchema }] }));
  return path;
}

describe('a deeply nested union schema', () => {
  it('is diffed through the CLI with a verdict for every leaf (unions 7 deep, 4 wide: 16,384 leaves)', async () => {
    const before = dump('before.json', nestedUnions(7, 4, 10));
    const after = dump('after.json', nestedUnions(7, 4, 5));
    const result = await cli(['diff', before, after, '--format', 'json'], {});
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('16384 changes at or above --fail-on BREAKING');
    const report = JSON.parse(result.stdout);
    const kinds = new Set(report.tools.deep.deltas.map((d: { kind: string }) => d.kind));
    // Either every leaf is judged, or (past the step budget) one conservative verdict with a note.
    expect(report.summary.maxSeverity).toBe('BREAKING');
    expect([...kinds].every((k) => k === 'length-range-narrowed' || k === 'constraint-changed')).toBe(true);
  });
});

describe('references a server may send', () => {
  it('a $ref with a malformed escape, into a prototype member or to an anchor: compiled with a warning naming it, never a crash', async () => {
    const refs = ['#/%', '#/%E0%A4%A', '#/__proto__', '#/properties/constructor', '#anchor'];
    const path = dump('refs.json', { type: 'object', properties: Object.fromEntries(refs.map((ref, i) => [`p${i}`, { $ref: ref }])) });
    const result = await cli(['compile', path, '--format', 'json'], {});
    expect(result.code, result.stderr).toBe(0);
    for (const ref of refs) expect(result.stderr).toContain(`$ref "${ref}" does not resolve inside the schema; kept as is`);
    const schema = JSON.parse(result.stdout).tools.deep.contract.inputSchema;
    expect(Object.values(schema.properties)).toEqual(refs.map(($ref) => ({ $ref })));
  });
});

describe('nesting a server may send', () => {
  it('a value nested 100,000 levels deep: exit 2 with what is wrong, never a bug report', async () => {
    const depth = 100_000;
    const path = join(dir, 'deep-value.json');
    writeFileSync(path, `{"tools":[{"name":"deep","inputSchema":{"type":"object","default":${'['.repeat(depth)}${']'.repeat(depth)}}}]}`);
    const result = await cli(['compile', path], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the input nests too deeply to process');
    expect(result.stderr).not.toContain('this is a bug in mcp-contract-guard; run again');
  });
});
