import { describe, expect, it } from 'vitest';
import { brief, inputDeltas, outputDeltas } from './helpers.js';
import { normalizeSchema } from '../../src/contract/schema.js';
import { MAX_WALK_STEPS, walkSchemas } from '../../src/diff/schema-walker.js';
import type { Delta } from '../../src/protocol/index.js';

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
const arg = (schema: Record<string, unknown>, required = false) => obj({ x: schema }, required ? { required: ['x'] } : {});

/**
 * [name, previous input schema, current input schema, expected input deltas, expected output
 * deltas when the same pair is an output schema]. Exact lists: one delta per changed keyword,
 * nothing else.
 */
const CASES: Array<[string, unknown, unknown, string[], string[]]> = [
  ['type narrowed', arg({ type: ['string', 'number'] }), arg({ type: 'string' }),
    ['type-narrowed@inputSchema.properties.x.type=BREAKING'], ['type-narrowed@outputSchema.properties.x.type=SAFE']],
  ['type widened', arg({ type: 'string' }), arg({ type: ['string', 'null'] }),
    ['type-widened@inputSchema.properties.x.type=SAFE'], ['type-widened@outputSchema.properties.x.type=RISKY']],
  ['type changed', arg({ type: 'string' }), arg({ type: 'number' }),
    ['type-changed@inputSchema.properties.x.type=BREAKING'], ['type-changed@outputSchema.properties.x.type=BREAKING']],
  ['integer → number widens', arg({ type: 'integer' }), arg({ type: 'number' }),
    ['type-widened@inputSchema.properties.x.type=SAFE'], ['type-widened@outputSchema.properties.x.type=RISKY']],
  ['number → integer narrows', arg({ type: 'number' }), arg({ type: 'integer' }),
    ['type-narrowed@inputSchema.properties.x.type=BREAKING'], ['type-narrowed@outputSchema.properties.x.type=SAFE']],
  ['enum value removed', arg({ type: 'string', enum: ['a', 'b', 'c'] }), arg({ type: 'string', enum: ['a', 'b'] }),
    ['enum-narrowed@inputSchema.properties.x.enum=BREAKING'], ['enum-narrowed@outputSchema.properties.x.enum=SAFE']],
  ['enum value added', arg({ type: 'string', enum: ['a', 'b'] }), arg({ type: 'string', enum: ['a', 'b', 'c'] }),
    ['enum-widened@inputSchema.properties.x.enum=SAFE'], ['enum-widened@outputSchema.properties.x.enum=RISKY']],
  ['enum value swapped', arg({ enum: ['a', 'b'] }), arg({ enum: ['a', 'c'] }),
    ['enum-changed@inputSchema.properties.x.enum=BREAKING'], ['enum-changed@outputSchema.properties.x.enum=RISKY']],
  ['enum → const', arg({ enum: ['a', 'b'] }), arg({ const: 'a' }),
    ['enum-narrowed@inputSchema.properties.x.const=BREAKING'], ['enum-narrowed@outputSchema.properties.x.const=SAFE']],
  ['const changed', arg({ const: 'a' }), arg({ const: 'b' }),
    ['enum-changed@inputSchema.properties.x.const=BREAKING'], ['enum-changed@outputSchema.properties.x.const=RISKY']],
  ['enum removed', arg({ type: 'string', enum: ['a'] }), arg({ type: 'string' }),
    ['enum-widened@inputSchema.properties.x.const=SAFE'], ['enum-widened@outputSchema.properties.x.const=RISKY']],
  ['maximum lowered', arg({ type: 'number', maximum: 100 }), arg({ type: 'number', maximum: 50 }),
    ['number-range-narrowed@inputSchema.properties.x.maximum=BREAKING'], ['number-range-narrowed@outputSchema.properties.x.maximum=SAFE']],
  ['minimum lowered', arg({ type: 'number', minimum: 5 }), arg({ type: 'number', minimum: 1 }),
    ['number-range-widened@inputSchema.properties.x.minimum=SAFE'], ['number-range-widened@outputSchema.properties.x.minimum=RISKY']],
  ['minimum → exclusiveMinimum at the same value', arg({ type: 'number', minimum: 1 }), arg({ type: 'number', exclusiveMinimum: 1 }),
    ['number-range-narrowed@inputSchema.properties.x.exclusiveMinimum=BREAKING'], ['number-range-narrowed@outputSchema.properties.x.exclusiveMinimum=SAFE']],
  ['exclusiveMaximum removed', arg({ type: 'number', exclusiveMaximum: 10 }), arg({ type: 'number' }),
    ['number-range-widened@inputSchema.properties.x.exclusiveMaximum=SAFE'], ['number-range-widened@outputSchema.properties.x.exclusiveMaximum=RISKY']],
  ['multipleOf 2 → 4', arg({ type: 'number', multipleOf: 2 }), arg({ type: 'number', multipleOf: 4 }),
    ['multiple-of-narrowed@inputSchema.properties.x.multipleOf=BREAKING'], ['multiple-of-narrowed@outputSchema.properties.x.multipleOf=SAFE']],
  ['multipleOf 4 → 2', arg({ type: 'number', multipleOf: 4 }), arg({ type: 'number', multipleOf: 2 }),
    ['multiple-of-widened@inputSchema.properties.x.multipleOf=SAFE'], ['multiple-of-widened@outputSchema.properties.x.multipleOf=RISKY']],
  ['multipleOf 2 → 3', arg({ type: 'number', multipleOf: 2 }), arg({ type: 'number', multipleOf: 3 }),
    ['multiple-of-changed@inputSchema.properties.x.multipleOf=BREAKING'], ['multiple-of-changed@outputSchema.properties.x.multipleOf=RISKY']],
  ['maxLength lowered', arg({ type: 'string', maxLength: 10 }), arg({ type: 'string', maxLength: 5 }),
    ['length-range-narrowed@inputSchema.properties.x.maxLength=BREAKING'], ['length-range-narrowed@outputSchema.properties.x.maxLength=SAFE']],
  ['minLength added', arg({ type: 'string' }), arg({ type: 'string', minLength: 1 }),
    ['length-range-narrowed@inputSchema.properties.x.minLength=BREAKING'], ['length-range-narrowed@outputSchema.properties.x.minLength=SAFE']],
  ['pattern added', arg({ type: 'string' }), arg({ type: 'string', pattern: '^[a-z]+$' }),
    ['pattern-added@inputSchema.properties.x.pattern=BREAKING'], ['pattern-added@outputSchema.properties.x.pattern=SAFE']],
  ['pattern changed', arg({ type: 'string', pattern: '^a' }), arg({ type: 'string', pattern: '^b' }),
    ['pattern-changed@inputSchema.properties.x.pattern=BREAKING'], ['pattern-changed@outputSchema.properties.x.pattern=RISKY']],
  ['pattern removed', arg({ type: 'string', pattern: '^a' }), arg({ type: 'string' }),
    ['pattern-removed@inputSchema.properties.x.pattern=SAFE'], ['pattern-removed@outputSchema.properties.x.pattern=RISKY']],
  ['format added', arg({ type: 'string' }), arg({ type: 'string', format: 'email' }),
    ['format-added@inputSchema.properties.x.format=BREAKING'], ['format-added@outputSchema.properties.x.format=SAFE']],
  ['format changed', arg({ type: 'string', format: 'uri' }), arg({ type: 'string', format: 'email' }),
    ['format-changed@inputSchema.properties.x.format=BREAKING'], ['format-changed@outputSchema.properties.x.format=RISKY']],
  ['minItems raised', arg({ type: 'array', minItems: 1 }), arg({ type: 'array', minItems: 2 }),
    ['item-count-range-narrowed@inputSchema.properties.x.minItems=BREAKING'], ['item-count-range-narrowed@outputSchema.properties.x.minItems=SAFE']],
  ['maxItems removed', arg({ type: 'array', maxItems: 3 }), arg({ type: 'array' }),
    ['item-count-range-widened@inputSchema.properties.x.maxItems=SAFE'], ['item-count-range-widened@outputSchema.properties.x.maxItems=RISKY']],
  ['uniqueItems added', arg({ type: 'array' }), arg({ type: 'array', uniqueItems: true }),
    ['unique-items-added@inputSchema.properties.x.uniqueItems=BREAKING'], ['unique-items-added@outputSchema.properties.x.uniqueItems=SAFE']],
  ['maxProperties lowered', arg({ type: 'object', maxProperties: 5 }), arg({ type: 'object', maxProperties: 2 }),
    ['property-count-range-narrowed@inputSchema.properties.x.maxProperties=BREAKING'], ['property-count-range-narrowed@outputSchema.properties.x.maxProperties=SAFE']],
  ['minProperties added', arg({ type: 'object' }), arg({ type: 'object', minProperties: 1 }),
    ['property-count-range-narrowed@inputSchema.properties.x.minProperties=BREAKING'], ['property-count-range-narrowed@outputSchema.properties.x.minProperties=SAFE']],
  ['new required property', obj({ a: { type: 'string' } }), obj({ a: { type: 'string' }, b: { type: 'string' } }, { required: ['b'] }),
    ['required-property-added@inputSchema.properties.b=BREAKING'], ['required-property-added@outputSchema.properties.b=RISKY']],
  ['new optional property', obj({ a: { type: 'string' } }), obj({ a: { type: 'string' }, b: { type: 'string' } }),
    ['property-added@inputSchema.properties.b=SAFE'], ['property-added@outputSchema.properties.b=RISKY']],
  ['property became required', obj({ a: { type: 'string' } }), obj({ a: { type: 'string' } }, { required: ['a'] }),
    ['property-became-required@inputSchema.properties.a=BREAKING'], ['property-became-required@outputSchema.properties.a=SAFE']],
  ['property no longer required', obj({ a: { type: 'string' } }, { required: ['a'] }), obj({ a: { type: 'string' } }),
    ['property-became-optional@inputSchema.properties.a=SAFE'], ['property-became-optional@outputSchema.properties.a=RISKY']],
  ['property removed, extra properties rejected', obj({ a: { type: 'string' }, b: { type: 'string' } }, { additionalProperties: false }), obj({ a: { type: 'string' } }, { additionalProperties: false }),
    ['property-removed@inputSchema.properties.b=BREAKING'], ['property-removed@outputSchema.properties.b=BREAKING']],
  ['property removed, extra properties accepted', obj({ a: { type: 'string' }, b: { type: 'string' } }), obj({ a: { type: 'string' } }),
    ['property-removed-ignored@inputSchema.properties.b=RISKY'], ['property-removed-ignored@outputSchema.properties.b=BREAKING']],
  ['additionalProperties turned false', obj({ a: { type: 'string' } }), obj({ a: { type: 'string' } }, { additionalProperties: false }),
    ['additional-properties-forbidden@inputSchema.additionalProperties=BREAKING'], ['additional-properties-forbidden@outputSchema.additionalProperties=SAFE']],
  ['additionalProperties false removed', obj({ a: { type: 'string' } }, { additionalProperties: false }), obj({ a: { type: 'string' } }),
    ['additional-properties-allowed@inputSchema.additionalProperties=SAFE'], ['additional-properties-allowed@outputSchema.additionalProperties=RISKY']],
  ['map values narrowed', arg({ type: 'object', additionalProperties: { type: ['string', 'number'] } }), arg({ type: 'object', additionalProperties: { type: 'string' } }),
    ['type-narrowed@inputSchema.properties.x.additionalProperties.type=BREAKING'], ['type-narrowed@outputSchema.properties.x.additionalProperties.type=SAFE']],
  ['nested array item property', obj({ items: { type: 'array', items: obj({ sku: { type: 'string' } }) } }), obj({ items: { type: 'array', items: obj({ sku: { type: 'string', maxLength: 8 } }) } }),
    ['length-range-narrowed@inputSchema.properties.items.items.properties.sku.maxLength=BREAKING'], ['length-range-narrowed@outputSchema.properties.items.items.properties.sku.maxLength=SAFE']],
  ['tuple position narrowed (draft-07 items array)', arg({ type: 'array', items: [{ type: 'string' }, { type: 'number' }] }), arg({ type: 'array', items: [{ type: 'string' }, { type: 'integer' }] }),
    ['type-narrowed@inputSchema.properties.x.prefixItems.1.type=BREAKING'], ['type-narrowed@outputSchema.properties.x.prefixItems.1.type=SAFE']],
  ['anyOf branch added', arg({ anyOf: [{ type: 'string' }, { type: 'number' }] }), arg({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }),
    ['union-branch-added@inputSchema.properties.x.anyOf.0=SAFE'], ['union-branch-added@outputSchema.properties.x.anyOf.0=RISKY']],
  ['anyOf branch removed', arg({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }), arg({ anyOf: [{ type: 'string' }, { type: 'number' }] }),
    ['union-branch-removed@inputSchema.properties.x.anyOf.0=BREAKING'], ['union-branch-removed@outputSchema.properties.x.anyOf.0=SAFE']],
  ['nullable via anyOf (zod .nullable())', arg({ type: 'string' }), arg({ anyOf: [{ type: 'string' }, { type: 'null' }] }),
    ['union-branch-added@inputSchema.properties.x.anyOf.0=SAFE'], ['union-branch-added@outputSchema.properties.x.anyOf.0=RISKY']],
  ['type list → anyOf is the same set', arg({ type: ['string', 'null'], maxLength: 3 }), arg({ anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] }), [], []],
  ['anyOf → oneOf', arg({ anyOf: [{ type: 'string' }, { type: 'number' }] }), arg({ oneOf: [{ type: 'string' }, { type: 'number' }] }),
    ['union-made-exclusive@inputSchema.properties.x.oneOf=BREAKING'], ['union-made-exclusive@outputSchema.properties.x.oneOf=SAFE']],
  ['change inside a union branch', arg({ anyOf: [{ type: 'string', maxLength: 5 }, { type: 'number' }] }), arg({ anyOf: [{ type: 'string', maxLength: 3 }, { type: 'number' }] }),
    ['length-range-narrowed@inputSchema.properties.x.anyOf.0.maxLength=BREAKING'], ['length-range-narrowed@outputSchema.properties.x.anyOf.0.maxLength=SAFE']],
  ['allOf constraint added', arg({ type: 'object', allOf: [{ required: ['a'] }, { not: { required: ['c'] } }] }), arg({ type: 'object', allOf: [{ required: ['a'] }, { not: { required: ['c'] } }, { maxProperties: 3 }] }),
    ['all-of-branch-added@inputSchema.properties.x.allOf.0=BREAKING'], ['all-of-branch-added@outputSchema.properties.x.allOf.0=SAFE']],
  ['object parts written as allOf are one object', arg({ type: 'object', allOf: [{ properties: { a: { type: 'string' } } }, { required: ['a'] }] }), arg({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }),
    [], []],
  ['not added', arg({ type: 'string' }), arg({ type: 'string', not: { const: 'admin' } }),
    ['not-added@inputSchema.properties.x.not=BREAKING'], ['not-added@outputSchema.properties.x.not=SAFE']],
  ['not widened is a narrowing', arg({ type: 'string', not: { enum: ['a', 'b'] } }), arg({ type: 'string', not: { enum: ['a', 'b', 'c'] } }),
    ['not-excludes-more@inputSchema.properties.x.not=BREAKING'], ['not-excludes-more@outputSchema.properties.x.not=SAFE']],
  ['not narrowed is a widening', arg({ type: 'string', not: { enum: ['a', 'b'] } }), arg({ type: 'string', not: { const: 'a' } }),
    ['not-excludes-less@inputSchema.properties.x.not=SAFE'], ['not-excludes-less@outputSchema.properties.x.not=RISKY']],
  ['default changed', arg({ type: 'number', default: 10 }), arg({ type: 'number', default: 20 }),
    ['default-changed@inputSchema.properties.x.default=RISKY'], ['default-changed@outputSchema.properties.x.default=COSMETIC']],
  ['default added', arg({ type: 'number' }), arg({ type: 'number', default: 20 }),
    ['default-added@inputSchema.properties.x.default=COSMETIC'], ['default-added@outputSchema.properties.x.default=COSMETIC']],
  ['deprecated', arg({ type: 'number' }), arg({ type: 'number', deprecated: true }),
    ['deprecation-added@inputSchema.properties.x.deprecated=SAFE'], ['deprecation-added@outputSchema.properties.x.deprecated=SAFE']],
  ['description, title, examples', arg({ type: 'number', description: 'a', title: 'A', examples: [1] }), arg({ type: 'number', description: 'b', title: 'B', examples: [2] }),
    ['description-changed@inputSchema.properties.x.description=COSMETIC', 'examples-changed@inputSchema.properties.x.examples=COSMETIC', 'title-changed@inputSchema.properties.x.title=COSMETIC'],
    ['description-changed@outputSchema.properties.x.description=COSMETIC', 'examples-changed@outputSchema.properties.x.examples=COSMETIC', 'title-changed@outputSchema.properties.x.title=COSMETIC']],
  ['vendor keyword', arg({ type: 'number', 'x-ui': 'slider' }), arg({ type: 'number', 'x-ui': 'input' }),
    ['annotation-changed@inputSchema.properties.x.x-ui=COSMETIC'], ['annotation-changed@outputSchema.properties.x.x-ui=COSMETIC']],
  ['string keyword on a number schema constrains nothing', arg({ type: 'number', maxLength: 3 }), arg({ type: 'number', maxLength: 1 }),
    ['inapplicable-keyword-changed@inputSchema.properties.x.maxLength=COSMETIC'], ['inapplicable-keyword-changed@outputSchema.properties.x.maxLength=COSMETIC']],
  ['dependentRequired added', arg({ type: 'object' }), arg({ type: 'object', dependentRequired: { a: ['b'] } }),
    ['constraint-added@inputSchema.properties.x.dependentRequired.a=BREAKING'], ['constraint-added@outputSchema.properties.x.dependentRequired.a=SAFE']],
  ['property with a dotted name', obj({ 'a.b': { type: 'string' } }), obj({ 'a.b': { type: 'number' } }),
    ['type-changed@inputSchema.properties["a.b"].type=BREAKING'], ['type-changed@outputSchema.properties["a.b"].type=BREAKING']],
];

describe('schema walker: one delta per changed keyword, classified by direction', () => {
  for (const [name, before, after, input, output] of CASES) {
    it(name, async () => {
      expect(brief(await inputDeltas(before, after)).sort()).toEqual([...input].sort());
      expect(brief(await outputDeltas(before, after)).sort()).toEqual([...output].sort());
    });
  }
});

describe('schema walker: notation and identity', () => {
  it('identical schemas give no delta at all', async () => {
    const schema = obj({ a: { type: 'string', enum: ['x', 'y'] } }, { required: ['a'] });
    expect(await inputDeltas(schema, structuredClone(schema))).toEqual([]);
  });

  it('reordered required, key order, draft-07 spellings give no delta', async () => {
    const before = { type: 'object', properties: { a: { type: 'string' }, b: { $ref: '#/definitions/B' } }, required: ['a', 'b'], definitions: { B: { type: 'number' } } };
    const after = { required: ['b', 'a'], properties: { b: { $ref: '#/$defs/B' }, a: { type: 'string' } }, $defs: { B: { type: 'number' } }, type: 'object' };
    expect(await inputDeltas(before, after)).toEqual([]);
  });

  it('declaring type object at the root of the arguments narrows nothing', async () => {
    expect(await inputDeltas({ properties: { a: { type: 'string' } } }, { type: 'object', properties: { a: { type: 'string' } } })).toEqual([]);
  });

  it('previous and current values are carried, with the message and hint', async () => {
    const [delta] = await inputDeltas(obj({ a: { type: 'number' } }), obj({ a: { type: 'number' }, currency: { type: 'string' } }, { required: ['currency'] }));
    expect(delta).toMatchObject({
      severity: 'BREAKING',
      kind: 'required-property-added',
      field: 'inputSchema.properties.currency',
      action: null,
      previous: null,
      current: { type: 'string' },
      message: 'arguments: new required property "currency".',
    });
    expect(delta?.hint).toMatch(/optional with a default/);
    expect(delta?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('schema walker: recursive schemas terminate', () => {
  const tree = (leaf: Record<string, unknown>) => ({
    type: 'object',
    properties: { node: { $ref: '#/$defs/Node' } },
    $defs: { Node: { type: 'object', properties: { value: leaf, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
  });

  it('a change inside a recursive definition is reported once, where it is first inlined', async () => {
    const deltas = await inputDeltas(tree({ type: 'string' }), tree({ type: 'string', maxLength: 3 }));
    expect(brief(deltas)).toEqual(['length-range-narrowed@inputSchema.properties.node.properties.value.maxLength=BREAKING']);
  });

  it('a root self-reference ($ref: "#") terminates', async () => {
    const before = { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } } };
    const after = { type: 'object', properties: { name: { type: 'string', minLength: 1 }, child: { $ref: '#' } } };
    expect(brief(await inputDeltas(before, after))).toEqual(['length-range-narrowed@inputSchema.properties.name.minLength=BREAKING']);
  });

  it('a recursive schema replaced by a different recursive schema terminates', async () => {
    const a = { type: 'object', properties: { next: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'object', properties: { v: { type: 'string' }, next: { $ref: '#/$defs/A' } } } } };
    const b = { type: 'object', properties: { next: { $ref: '#/$defs/B' } }, $defs: { B: { type: 'object', properties: { v: { type: 'number' }, next: { $ref: '#/$defs/B' } } } } };
    const deltas = await inputDeltas(a, b);
    expect(brief(deltas)).toContain('type-changed@inputSchema.properties.next.properties.v.type=BREAKING');
  });

  it('recursion through a union with different references on each side terminates', async () => {
    const expr = (name: string, op: string[]) => ({
      type: 'object',
      properties: { e: { $ref: `#/$defs/${name}` } },
      $defs: { [name]: { anyOf: [{ type: 'number' }, { type: 'object', properties: { op: { enum: op }, args: { type: 'array', items: { $ref: `#/$defs/${name}` } } } }] } },
    });
    const deltas = await inputDeltas(expr('A', ['add', 'sub']), expr('B', ['add']));
    expect(brief(deltas)).toContain('enum-narrowed@inputSchema.properties.e.anyOf.0.properties.op.const=BREAKING');
  });
});

describe('schema walker: cost', () => {
  it('deeply nested unions cost polynomial work, not one walk per enclosing pairing', () => {
    const nest = (depth: number, leaf: number): Record<string, unknown> =>
      depth === 0
        ? { type: 'string', maxLength: leaf }
        : { anyOf: [0, 1, 2, 3, 4, 5].map((i) => ({ type: 'object', properties: { [`k${i}`]: nest(depth - 1, leaf) }, required: [`k${i}`] })) };
    const walk = (depth: number) =>
      walkSchemas(normalizeSchema({ type: 'object', properties: { x: nest(depth, 10) } }).schema, normalizeSchema({ type: 'object', properties: { x: nest(depth, 5) } }).schema, { field: 'inputSchema', direction: 'input' });
    const [three, four] = [walk(3), walk(4)];
    expect(four.changes).toHaveLength(6 ** 4);
    expect(four.changes.every((d) => d.kind === 'length-range-narrowed')).toBe(true);
    // One more level multiplies the schema by 6. Costing every pairing of every enclosing union
    // multiplied the work by 36 per level; now it grows with the size times the depth.
    expect(four.steps / three.steps).toBeLessThan(6 * (4 / 3) * 1.5);
    expect(four.steps).toBeLessThan(200 * 6 ** 4);
  });

  it('a schema beyond the step budget gets one conservative verdict and a note, never a hang', () => {
    const nest = (depth: number, leaf: number): Record<string, unknown> =>
      depth === 0 ? { type: 'integer', maximum: leaf } : { anyOf: [0, 1, 2, 3].map((i) => ({ type: 'object', properties: { [`k${i}`]: nest(depth - 1, leaf) }, required: [`k${i}`] })) };
    const schemas = [nest(4, 10), nest(4, 5)].map((s) => normalizeSchema(s).schema);
    const unbounded = walkSchemas(schemas[0]!, schemas[1]!, { field: 'inputSchema', direction: 'input' });
    expect(unbounded.changes).toHaveLength(4 ** 4);
    const bounded = walkSchemas(schemas[0]!, schemas[1]!, { field: 'inputSchema', direction: 'input', maxSteps: Math.floor(unbounded.steps / 2) });
    expect(bounded.changes.map((d) => d.kind)).toEqual(['constraint-changed']);
    expect(bounded.changes[0]?.note).toMatch(/too large or too deeply nested to compare keyword by keyword/);
    expect(bounded.uncertain).toHaveLength(1);
    expect(MAX_WALK_STEPS).toBeGreaterThan(50 * unbounded.steps);
  });
});

describe('schema walker: properties renamed when several change at once', () => {
  const text = (description: string) => ({ type: 'string', description });
  const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false });
  const renames = (deltas: Delta[]) =>
    deltas.filter((d) => d.kind === 'property-renamed').map((d) => `${d.field}: ${String(d.previous)} → ${String(d.current)} ${JSON.stringify(Object.fromEntries(Object.entries(d.facts ?? {}).sort()))}`);

  it('pairs two renames of one schema by their names (startRef → startTarget, endRef → endTarget)', async () => {
    const before = object({ startRef: text('Exact source element reference'), endRef: text('Exact target element reference') }, ['startRef', 'endRef']);
    const after = object({ startTarget: text('Exact target element reference, or a selector'), endTarget: text('Exact target element reference, or a selector') }, ['startTarget', 'endTarget']);
    const deltas = await inputDeltas(before, after);
    expect(renames(deltas)).toEqual([
      'inputSchema.properties.endTarget: endRef → endTarget {"pairedByName":true,"sameSchema":true}',
      'inputSchema.properties.startTarget: startRef → startTarget {"pairedByName":true,"sameSchema":true}',
    ]);
    expect(brief(deltas)).toEqual(['property-renamed@inputSchema.properties.endTarget=BREAKING', 'property-renamed@inputSchema.properties.startTarget=BREAKING']);
  });

  it('pairs by description when the names share nothing, inside the items of an array of objects', async () => {
    const item = (members: Record<string, unknown>, required: string[]) => ({ type: 'object', properties: { fields: { type: 'array', items: object(members, required) } }, required: ['fields'] });
    const before = item({ name: text('Field name'), ref: text('Exact target field reference from the page snapshot') }, ['name', 'ref']);
    const after = item({ name: text('Field name'), element: text('Human-readable element description'), target: text('Exact target element reference from the page snapshot, or a selector') }, ['name', 'target']);
    expect(brief(await inputDeltas(before, after))).toEqual([
      'property-renamed@inputSchema.properties.fields.items.properties.target=BREAKING',
      'property-added@inputSchema.properties.fields.items.properties.element=SAFE',
    ]);
  });

  it('leaves ambiguous evidence as a removal and an addition', async () => {
    // Two strings gone, two strings added, nothing in their names or descriptions to tell them apart.
    const before = object({ alpha: { type: 'string' }, beta: { type: 'string' } });
    const after = object({ gamma: { type: 'string' }, delta: { type: 'string' } });
    const deltas = await inputDeltas(before, after);
    expect(renames(deltas)).toEqual([]);
    expect(brief(deltas).filter((b) => b.startsWith('property-removed'))).toHaveLength(2);
    // As close either way: still not a rename.
    const close = await inputDeltas(object({ ref: text('element reference') }), object({ target: text('element reference'), locator: text('element reference') }));
    expect(renames(close)).toEqual([]);
  });

  it('never across a type change', async () => {
    const deltas = await inputDeltas(object({ ref: text('element reference') }), object({ target: { type: 'integer', description: 'element reference' } }));
    expect(renames(deltas)).toEqual([]);
  });

  it('the only candidate either way is a rename without any name evidence, as before', async () => {
    const deltas = await inputDeltas(object({ shipment_id: { type: 'string' } }, ['shipment_id']), object({ id: { type: 'string' } }, ['id']));
    expect(renames(deltas)).toEqual(['inputSchema.properties.id: shipment_id → id {"sameSchema":true}']);
  });
});
