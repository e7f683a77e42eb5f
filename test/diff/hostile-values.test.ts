/**
 * A server chooses every name and value in its schemas: keywords named like Object.prototype
 * members, objects where a string belongs, escapes that do not decode. Whatever it sends, the
 * pipeline (normalize, diff, every renderer, the runtime's error) finishes, and every delta
 * holds JSON values only. Found by fuzzing: each case below once crashed or leaked a prototype
 * member into a report.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { returnsToEventLoop } from '../helpers/timing.js';
import { parseLockfile, renderLockfile } from '../../src/contract/lockfile.js';
import type { JsonValue, RawCapture } from '../../src/contract/model.js';
import { normalizeCapture } from '../../src/contract/normalize.js';
import { diffContracts, type DiffReport } from '../../src/diff/index.js';
import { renderComment } from '../../src/github/render/comment.js';
import { renderSummary } from '../../src/github/render/summary.js';
import { entryReports } from '../../src/protocol/index.js';
import { renderArtifact, renderJson, renderMarkdown, renderSarif, renderText, renderXml } from '../../src/report/index.js';
import { enrichValidationError, formatValidationError, loadDeltaMap } from '../../src/runtime/index.js';
import { reviewOf } from '../report/comment-fixtures.js';
import { contractsOf } from './helpers.js';

/** Both directions at once: `a` → `b` as arguments, `b` → `a` as results. */
function diff(a: unknown, b: unknown): Promise<DiffReport> {
  const tool = (input: unknown, output: unknown) => ({ name: 't', inputSchema: input, outputSchema: output });
  return diffContracts(contractsOf({ tools: [tool(a, b)] }), contractsOf({ tools: [tool(b, a)] }), { semantic: false });
}

function renderAll(report: DiffReport): string[] {
  return [renderMarkdown(report), renderText(report, { color: false }), renderJson(report), renderXml(report), renderSarif(report, { lockfilePath: 'l.json' })];
}

/** Every value a delta holds survives a JSON round trip: no function, no undefined, no prototype. */
function expectJsonValues(report: DiffReport): void {
  for (const { entry } of entryReports(report)) {
    for (const delta of entry.deltas) {
      for (const value of [delta.previous, delta.current]) expect(JSON.parse(JSON.stringify(value ?? null)), `${delta.kind} ${delta.field}`).toEqual(value ?? null);
    }
  }
}

describe('values a server chose', () => {
  it('a keyword named "constructor" that goes away is reported as it was, never as Object', async () => {
    const report = await diff({ type: 'object', dependentSchemas: { a: { constructor: 1 } } }, { type: 'object' });
    const [delta] = report.tools.t!.deltas.filter((d) => d.direction === 'input');
    expect(delta).toMatchObject({ kind: 'annotation-changed', field: 'inputSchema.dependentSchemas.a.constructor', previous: 1, current: null });
    expectJsonValues(report);
    expect(renderMarkdown(report)).toContain('`1` → `(none)`');
  });

  it('objects where names belong (a format, a type list, dependentRequired) are rendered as JSON', async () => {
    // Parsed JSON, as a server sends it: key order that normalization rewrites into records of its own.
    const hostile = JSON.parse('{"type":"object","format":{"b":1,"a":[]},"dependentRequired":{"a":[{"b":1,"a":2},"x"]},"properties":{"p":{"type":{"type":[{"y":1,"x":0}]}}}}');
    const report = await diff(hostile, { type: 'object' });
    expectJsonValues(report);
    for (const text of renderAll(report)) expect(text.length).toBeGreaterThan(0);
    expect(renderMarkdown(report)).toContain('{"a":[],"b":1}');
  });

  it('any schema pair: normalize, diff, every renderer and the runtime error finish, with JSON values only (fast-check, 1,500 pairs)', async () => {
    const KEYWORDS = ['type', 'properties', 'required', 'items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'not', 'enum', 'const', '$ref', '$defs', 'definitions',
      'minimum', 'maximum', 'exclusiveMinimum', 'minLength', 'maxLength', 'pattern', 'format', 'additionalProperties', 'dependencies', 'dependentRequired',
      'dependentSchemas', 'if', 'then', 'default', 'description', 'multipleOf', 'uniqueItems', 'contains', 'propertyNames', '__proto__', 'constructor', 'toString'];
    const REFS = ['#', '#/', '#/%', '#/$defs/a', '#/definitions/a', '#/properties/a', 'https://example.com/s', '#/anyOf/0', '#/__proto__', '#anchor'];
    const leaf = fc.oneof(
      fc.constantFrom('string', 'integer', 'number', 'object', 'array', 'null', 'boolean'),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
      fc.string({ maxLength: 8 }),
      fc.constantFrom(...REFS),
      fc.array(fc.constantFrom('a', 'b', 'string', 'null'), { maxLength: 3 }),
    );
    const value = fc.letrec<{ node: JsonValue }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.dictionary(fc.constantFrom(...KEYWORDS), tie('node'), { maxKeys: 5 }),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__', 'constructor'), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    // Through JSON text, as a server's schema arrives: plain parsed objects, `__proto__` an own key.
    const sent = value.map((v) => JSON.parse(JSON.stringify(v) ?? 'null') as JsonValue);
    await fc.assert(
      fc.asyncProperty(sent, sent, async (a, b) => {
        const report = await diff(a, b);
        expectJsonValues(report);
        renderAll(report);
        formatValidationError([{ keyword: 'required', instancePath: '', params: { missingProperty: 'a' } }], { args: {}, schema: a as never, example: true });
      }),
      { numRuns: 1_500, seed: 20261122, plugins: [returnsToEventLoop] },
    );
  });

  it('any two captures (names and values anywhere: tools, prompts, resources, capabilities): the lockfile round trip, the diff, the comment and the runtime map agree and finish (fast-check, 600 pairs)', async () => {
    const NAMES = ['a', 'b', '__proto__', 'constructor', 'toString', 'x y', '<b>', '`c`', '|d|', 'e\n::error::f'];
    const FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'execution', 'arguments', 'required', 'mimeType', 'type',
      'properties', 'readOnlyHint', 'taskSupport', 'icons', '_meta', '__proto__', 'constructor'];
    const leaf = fc.oneof(fc.constantFrom(...NAMES), fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 6 }), fc.constantFrom('string', 'object'));
    const value = fc.letrec<{ node: JsonValue }>((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.dictionary(fc.constantFrom(...FIELDS, ...NAMES), tie('node'), { maxKeys: 5 }), fc.array(tie('node'), { maxLength: 3 })),
    })).node;
    const entries = (key: string, most: number) =>
      fc.array(fc.tuple(fc.constantFrom(...NAMES), fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 4 })).map(([name, rest]) => ({ ...rest, [key]: name })), { maxLength: most });
    const capture = fc
      .record({
        tools: entries('name', 4),
        prompts: entries('name', 2),
        resources: entries('uri', 2),
        resourceTemplates: entries('uriTemplate', 2),
        capabilities: fc.dictionary(fc.constantFrom('tools', 'prompts', 'resources', 'completions', 'experimental', '__proto__'), value, { maxKeys: 3 }),
      })
      // Through JSON text, as a server's answer arrives.
      .map((c) => ({ server: { name: 's', version: '1.0.0' }, ...(JSON.parse(JSON.stringify(c)) as Omit<RawCapture, 'server'>) }) as RawCapture);
    await fc.assert(
      fc.asyncProperty(capture, capture, async (a, b) => {
        const [previous, current] = [normalizeCapture(a).contracts, normalizeCapture(b).contracts];
        const locked = [previous, current].map((contracts) => {
          const text = renderLockfile(contracts);
          const back = parseLockfile(text, 'mcp-contracts.lock.json');
          expect(renderLockfile(back)).toBe(text);
          return back;
        });
        const report = await diffContracts(previous, current, { semantic: false });
        // Read back from lockfiles, the contracts diff exactly as they did when just normalized.
        expect(renderJson(await diffContracts(locked[0]!, locked[1]!, { semantic: false }))).toBe(renderJson(report));
        expectJsonValues(report);
        renderAll(report);
        const review = reviewOf('s', report);
        renderComment(review);
        renderComment(review, 4_000);
        renderSummary([review], []);
        const deltas = loadDeltaMap(renderArtifact(report));
        for (const name of NAMES) enrichValidationError('<validation_error tool="t">\n<field name="a">Missing.</field>\n</validation_error>', name, null, { activeDeltas: deltas });
      }),
      { numRuns: 600, seed: 20261123, plugins: [returnsToEventLoop] },
    );
  });
});
