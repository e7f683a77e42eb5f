/**
 * The json-schema-diff cross-check: its limits as measured (see src/diff/semantic.ts), the
 * projection that works around them, the worker-thread time budget that really stops it, and
 * how its findings and fallbacks reach the report.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { ContractEntry, JsonObject } from '../../src/contract/model.js';
import { normalizeTool } from '../../src/contract/normalize.js';
import { crossCheck } from '../../src/diff/cross-check.js';
import type { Finding } from '../../src/diff/finding.js';
import { projectForSemanticCheck, runSemanticChecks } from '../../src/diff/semantic.js';
import { inputDeltas } from './helpers.js';

const budget = { perPairMs: 5_000, totalMs: 20_000, workers: 1 };

describe('json-schema-diff 1.0.0 limits, as measured (why the projection exists)', () => {
  const jsonSchemaDiff = createRequire(import.meta.url)('json-schema-diff') as {
    diffSchemas: (o: { sourceSchema: unknown; destinationSchema: unknown }) => Promise<{ removalsFound: boolean }>;
  };
  const removals = async (sourceSchema: unknown, destinationSchema: unknown) => (await jsonSchemaDiff.diffSchemas({ sourceSchema, destinationSchema })).removalsFound;

  it('ignores enum, const, pattern, format and multipleOf', async () => {
    expect(await removals({ enum: ['a', 'b'] }, { enum: ['a'] })).toBe(false);
    expect(await removals({ const: 'a' }, { const: 'b' })).toBe(false);
    expect(await removals({ type: 'string' }, { type: 'string', pattern: '^a' })).toBe(false);
    expect(await removals({ type: 'string' }, { type: 'string', format: 'email' })).toBe(false);
    expect(await removals({ type: 'number' }, { type: 'number', multipleOf: 2 })).toBe(false);
  });

  it('throws on a 2020-12 $schema and on circular $refs', async () => {
    await expect(removals({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' }, { type: 'string' })).rejects.toThrow(/2020-12/);
    await expect(removals({ type: 'object', properties: { c: { $ref: '#' } } }, { type: 'object' })).rejects.toThrow(/Circular/);
  });

  it('ignores patternProperties but honours additionalProperties: false, inventing a loss', async () => {
    // {"x_a": 1} is accepted by both (the pattern allows it), yet json-schema-diff reports it lost.
    const declared = { type: 'object', properties: { x_a: {} }, additionalProperties: false };
    const patterned = { type: 'object', patternProperties: { '^x_': {} }, additionalProperties: false };
    expect(await removals(declared, patterned)).toBe(true);
  });
});

describe('projection for json-schema-diff', () => {
  it('drops the keywords it ignores and turns oneOf into anyOf', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: { a: { type: 'string', pattern: '^x', format: 'email', enum: ['x'], description: 'd' }, b: { oneOf: [{ type: 'number', multipleOf: 2 }, { type: 'null' }] } },
    };
    expect(projectForSemanticCheck(schema)).toEqual({
      schema: { type: 'object', properties: { a: { type: 'string' }, b: { anyOf: [{ type: 'number' }, { type: 'null' }] } } },
    });
  });

  it('skips recursive schemas and `not` (an ignored keyword under `not` would invert the approximation)', () => {
    expect(projectForSemanticCheck({ type: 'object', properties: { c: { $ref: '#' } } })).toEqual({ skip: 'the schema is recursive ($ref)' });
    expect(projectForSemanticCheck({ type: 'string', not: { const: 'x' } })).toEqual({ skip: 'the schema uses "not"' });
  });

  it('closes an object once with what its allOf members declare, so constraints moved between members are compared', () => {
    const schema = { type: 'object', allOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'number', maximum: 3 } }, required: ['b'] }] };
    const projected = projectForSemanticCheck(schema, { closeObjects: true });
    expect(projected).toEqual({
      schema: {
        type: 'object',
        allOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'number', maximum: 3 } }, required: ['b'] }],
        properties: { a: {}, b: {} },
        additionalProperties: false,
      },
    });
  });

  it('skips tuples, and reads defaulted arguments as optional when asked', () => {
    expect(projectForSemanticCheck({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' } })).toEqual({ skip: 'the schema has a tuple (prefixItems), which json-schema-diff reads the draft-07 way' });
    const defaulted = { type: 'object', properties: { mode: { type: 'string', default: 'a' }, q: { type: 'string' } }, required: ['mode', 'q'] };
    expect(projectForSemanticCheck(defaulted, { defaultsAreOptional: true })).toEqual({ schema: { type: 'object', properties: { mode: { type: 'string' }, q: { type: 'string' } }, required: ['q'] } });
  });

  it('closes objects on request, keeping required names allowed', () => {
    expect(projectForSemanticCheck({ type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] }, { closeObjects: true })).toEqual({
      schema: { type: 'object', properties: { a: { type: 'string' }, b: {} }, required: ['a', 'b'], additionalProperties: false },
    });
  });
});

describe('json-schema-diff in worker threads', () => {
  it('finds lost and gained values', async () => {
    const results = await runSemanticChecks(
      [
        { id: 'narrowed', previous: { type: ['string', 'number'] }, current: { type: 'string' } },
        { id: 'widened', previous: { type: 'object', properties: { n: { type: 'integer', maximum: 5 } } }, current: { type: 'object', properties: { n: { type: 'integer', maximum: 9 } } } },
      ],
      budget,
    );
    expect(results.get('narrowed')).toMatchObject({ status: 'done', removalsFound: true, additionsFound: false });
    expect(results.get('widened')).toMatchObject({ status: 'done', removalsFound: false, additionsFound: true });
  });

  it('a throw inside json-schema-diff is caught and reported as skipped', async () => {
    const results = await runSemanticChecks([{ id: 'x', previous: { anyOf: 'not a list' } as never, current: { type: 'number' } }], budget);
    expect(results.get('x')).toMatchObject({ status: 'skipped' });
    expect((results.get('x') as { reason: string }).reason).toMatch(/^json-schema-diff failed: /);
  });

  it('the time budget really stops a runaway computation (flat oneOf, measured at ~65 s unbounded)', async () => {
    const variant = (i: number) => ({ type: 'object', properties: { kind: { type: 'string' }, [`f${i}`]: { type: 'string' } }, required: ['kind', `f${i}`] });
    // Unbounded it would run a minute and end "done": "skipped" for this reason is the budget at work.
    const results = await runSemanticChecks(
      [{ id: 'slow', previous: { oneOf: [0, 1, 2, 3, 4].map(variant) }, current: { oneOf: [0, 1, 2, 3, 4, 5].map(variant) } }],
      { perPairMs: 500, totalMs: 5_000, workers: 1 },
    );
    expect(results.get('slow')).toEqual({ status: 'skipped', reason: 'json-schema-diff took longer than 500 ms' });
  });

  it('pairs not started when the total budget runs out are skipped, not run', async () => {
    const variant = (i: number) => ({ type: 'object', properties: { [`f${i}`]: { type: 'string' } }, required: [`f${i}`] });
    const slow = { previous: { oneOf: [0, 1, 2, 3, 4].map(variant) }, current: { oneOf: [0, 1, 2, 3, 4, 5].map(variant) } };
    const results = await runSemanticChecks(
      [{ id: 'a', ...slow }, { id: 'b', previous: { type: 'string' }, current: { type: 'number' } }],
      { perPairMs: 10_000, totalMs: 400, workers: 1 },
    );
    expect(results.get('a')).toMatchObject({ status: 'skipped' });
    expect(results.get('b')).toEqual({ status: 'skipped', reason: 'the 400 ms budget of the semantic check ran out' });
  });
});

describe('cross-check in the engine', () => {
  /** Two string variants that one plain string variant covers. */
  const TWO_STRINGS: JsonObject[] = [{ type: 'string', maxLength: 5 }, { type: 'string', minLength: 1 }];
  const entry = (inputSchema: JsonObject): ContractEntry => normalizeTool({ name: 't', inputSchema });

  it('a loss the walker did not explain becomes a BREAKING semantic-narrowing delta', async () => {
    // Simulates a walker blind spot: the schemas narrow, but no walker delta says so.
    const deltas = new Map<string, Finding[]>();
    await crossCheck(deltas, [{ key: 't', previous: entry({ type: 'object', properties: { n: { type: 'number' } } }), current: entry({ type: 'object', properties: { n: { type: 'integer' } } }), uncertain: { inputSchema: ['simulated'] } }], budget);
    const [found] = deltas.get('t') ?? [];
    expect(found).toMatchObject({ kind: 'semantic-narrowing', direction: 'input', segments: ['inputSchema'] });
    expect(found?.note).toMatch(/json-schema-diff/);
  });

  it('follows the engine convention: a new optional argument loses nothing', async () => {
    const deltas = new Map<string, Finding[]>();
    const before = { type: 'object', properties: { a: { type: 'string' } } };
    const after = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } };
    await crossCheck(deltas, [{ key: 't', previous: entry(before), current: entry(after), uncertain: { inputSchema: ['simulated'] } }], budget);
    expect(deltas.get('t')).toBeUndefined();
  });

  it('when it cannot run, the walker deltas of that schema say so in a note', async () => {
    // An argument variant without a partner makes the walker unsure; the recursion stops json-schema-diff.
    const tree = (variants: JsonObject[]) => ({ type: 'object', properties: { name: { anyOf: variants }, child: { $ref: '#' } } });
    const [delta] = await inputDeltas(tree(TWO_STRINGS), tree([{ type: 'string' }]), { semantic: true });
    expect(delta).toMatchObject({ kind: 'length-range-widened', severity: 'SAFE' });
    expect(delta?.note).toBe('Semantic cross-check not run (the schema is recursive ($ref)); classified by the keyword rules alone.');
  });

  it('is not asked where the walker judged every keyword exactly', async () => {
    // A zero budget would leave a note on any schema pair handed to json-schema-diff.
    const exact = await inputDeltas({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object', properties: { a: { type: 'string', maxLength: 9 } } }, { semantic: true, semanticBudgetMs: 0 });
    expect(exact.map((d) => d.kind).sort()).toEqual(['length-range-narrowed', 'property-became-optional']);
    expect(exact.every((d) => d.note === undefined)).toBe(true);
    // A variant joining an argument union only adds values: judged exactly, as is `T` made `T | null`.
    const nullable = await inputDeltas({ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }, { semantic: true, semanticBudgetMs: 0 });
    expect(nullable.map((d) => [d.kind, d.severity, d.note])).toEqual([['union-branch-added', 'SAFE', undefined]]);
    // Two argument variants folded into one: each old value must still find a variant, which the pairing alone does not prove.
    const unsure = await inputDeltas({ type: 'object', properties: { a: { anyOf: TWO_STRINGS } } }, { type: 'object', properties: { a: { anyOf: [{ type: 'string' }] } } }, { semantic: true, semanticBudgetMs: 0 });
    expect(unsure[0]?.note).toMatch(/budget of the semantic check ran out/);
  });

  it('is not asked when the walker already found a BREAKING change, nor with semantic: false', async () => {
    const [withCheck] = await inputDeltas({ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { a: { type: 'number' } } }, { semantic: true });
    expect(withCheck?.note).toBeUndefined();
    const tree = (max: number) => ({ type: 'object', properties: { name: { type: 'string', maxLength: max }, child: { $ref: '#' } } });
    const [without] = await inputDeltas(tree(3), tree(5), { semantic: false });
    expect(without?.note).toBeUndefined();
  });
});
