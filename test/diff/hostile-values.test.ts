/**
 * A server chooses every name and value in its schemas: keywords named like Object.prototype
 * members, objects where a string belongs, escapes that do not decode. Whatever it sends, the
 * pipeline (normalize, diff, every renderer, the runtime's error) finishes, and every delta
 * holds JSON values only. Found by fuzzing: each case below once crashed or leaked a prototype
 * member into a report.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/contract/model.js';
import { diffContracts, type DiffReport } from '../../src/diff/index.js';
import { entryReports } from '../../src/protocol/index.js';
import { renderJson, renderMarkdown, renderSarif, renderText, renderXml } from '../../src/report/index.js';
import { formatValidationError } from '../../src/runtime/index.js';
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
      { numRuns: 1_500, seed: 20261122 },
    );
  }, 60_000);
});
