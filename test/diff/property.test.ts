/**
 * Property-based check of the classification against a real validator (ajv, draft 2020-12):
 *
 * - soundness, inputs: whenever a value the old schema accepts is rejected by the new one, the
 *   report has a BREAKING delta for the tool;
 * - soundness, outputs: whenever the new schema accepts a value the old one rejected, the
 *   report has a RISKY or BREAKING delta;
 * - precision: pairs built only from widenings have no BREAKING input delta; pairs built only
 *   from narrowings have no RISKY/BREAKING output delta.
 *
 * Witness values are enumerated from both schemas (boundaries, enum members, other types),
 * using only the property names the producing side declares: the engine's convention is that
 * callers send declared arguments and servers return declared fields.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { returnsToEventLoop } from '../helpers/timing.js';
import type { JsonObject, JsonValue } from '../../src/contract/model.js';
import { normalizeTool } from '../../src/contract/normalize.js';
import { diffContracts, type DiffReport } from '../../src/diff/index.js';
import { SEVERITY_RANK } from '../../src/protocol/index.js';
import { contractsOf } from './helpers.js';

// ── schema generator ────────────────────────────────────────────────────────────────────

const PATTERNS = ['^[a-z]+$', '^[A-Z]', '\\d', '^.{0,3}$'];
const WORDS = ['a', 'b', 'c', 'red', 'green'];
const NUMBERS = [-10, -1, 0, 1, 2, 3, 5, 10, 100];

type S = JsonObject;

const optional = <T,>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const clean = (o: Record<string, unknown>): S => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as S;

const stringSchema = fc
  .record({ minLength: optional(fc.integer({ min: 0, max: 3 })), maxLength: optional(fc.integer({ min: 1, max: 8 })), pattern: optional(fc.constantFrom(...PATTERNS)) })
  .map((r) => clean({ type: 'string', ...r }));
const enumSchema = fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((values) => ({ type: 'string', enum: values }) as S);
const numberSchema = fc
  .record({
    type: fc.constantFrom('number', 'integer'),
    minimum: optional(fc.constantFrom(...NUMBERS)),
    maximum: optional(fc.constantFrom(...NUMBERS)),
    exclusiveMaximum: optional(fc.constantFrom(...NUMBERS)),
    multipleOf: optional(fc.constantFrom(1, 2, 3, 0.5)),
  })
  .map(clean);
const scalar: fc.Arbitrary<S> = fc.oneof(stringSchema, enumSchema, numberSchema, fc.constant({ type: 'boolean' } as S));
const nullable = scalar.map((s) => ({ ...s, type: [s.type as string, 'null'] }) as S);

const leaf: fc.Arbitrary<S> = fc.letrec<{ node: S }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    scalar,
    nullable,
    fc.record({ items: tie('node'), minItems: optional(fc.integer({ min: 0, max: 2 })), maxItems: optional(fc.integer({ min: 1, max: 3 })), uniqueItems: optional(fc.constant(true)) })
      .map((r) => clean({ type: 'array', ...r })),
    fc.tuple(scalar, scalar).map(([a, b]) => ({ anyOf: [a, b] }) as S),
    fc.tuple(scalar, scalar).map(([a, b]) => ({ oneOf: [a, b] }) as S),
    fc.tuple(stringSchema, stringSchema).map(([a, b]) => ({ allOf: [a, b] }) as S),
    fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 2 }).map((values) => ({ type: 'string', not: { enum: values } }) as S),
    objectOf(tie('node')),
  ),
})).node;

function objectOf(child: fc.Arbitrary<S>): fc.Arbitrary<S> {
  return fc
    .uniqueArray(fc.tuple(fc.constantFrom('p', 'q', 'r', 's'), child), { minLength: 0, maxLength: 3, selector: ([n]) => n })
    .chain((props) =>
      fc.record({ required: fc.subarray(props.map(([n]) => n)), closed: fc.boolean() }).map(({ required, closed }) =>
        clean({
          type: 'object',
          properties: Object.fromEntries(props),
          required: required.length > 0 ? required : undefined,
          additionalProperties: closed ? false : undefined,
        }),
      ),
    );
}

const rootSchema: fc.Arbitrary<S> = objectOf(leaf);

// ── mutations ───────────────────────────────────────────────────────────────────────────

/** A small seeded generator (mulberry32) for mutation choices; fast-check shrinks the seed. */
class Rng {
  constructor(private state: number) {}
  nextInt(min: number, max: number): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return min + Math.floor(unit * (max - min + 1));
  }
}

type Mutation = (s: S, rng: Rng) => S | null;
const pick = <T,>(rng: Rng, list: readonly T[]): T => list[rng.nextInt(0, list.length - 1)] as T;
const strictlyBetween = (rng: Rng) => pick(rng, NUMBERS);

/** Widenings: every value accepted before is still accepted (for declared properties). */
const WIDENINGS: Record<string, Mutation> = {
  dropRequired: (s) => (Array.isArray(s.required) && s.required.length > 0 ? { ...s, required: (s.required as string[]).slice(1) } : null),
  openObject: (s) => (s.additionalProperties === false ? without(s, 'additionalProperties') : null),
  addOptional: (s) => (s.type === 'object' && isObj(s.properties) ? { ...s, properties: { ...s.properties, z: { type: 'string', maxLength: 2 } } } : null),
  addEnumValue: (s) => (Array.isArray(s.enum) ? { ...s, enum: [...new Set([...(s.enum as string[]), 'zz'])] } : null),
  dropEnum: (s) => ('enum' in s ? without(s, 'enum') : null),
  dropBound: (s) => dropOne(s, ['minimum', 'maximum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems']),
  loosenMax: (s) => (typeof s.maximum === 'number' ? { ...s, maximum: (s.maximum as number) + 5 } : typeof s.maxLength === 'number' ? { ...s, maxLength: (s.maxLength as number) + 2 } : null),
  loosenMin: (s) => (typeof s.minimum === 'number' ? { ...s, minimum: (s.minimum as number) - 5 } : null),
  dropPattern: (s) => ('pattern' in s ? without(s, 'pattern') : null),
  dropMultipleOf: (s) => (s.multipleOf === 2 ? { ...s, multipleOf: 1 } : 'multipleOf' in s ? without(s, 'multipleOf') : null),
  dropUnique: (s) => ('uniqueItems' in s ? without(s, 'uniqueItems') : null),
  addNull: (s) => (typeof s.type === 'string' && s.type !== 'object' && s.type !== 'null' ? { ...s, type: [s.type, 'null'] } : null),
  integerToNumber: (s) => (s.type === 'integer' && !('multipleOf' in s) ? { ...s, type: 'number' } : null),
  addAnyOfBranch: (s) => (Array.isArray(s.anyOf) ? { ...s, anyOf: [...(s.anyOf as S[]), { type: 'null' }] } : null),
  dropAllOfBranch: (s) => (Array.isArray(s.allOf) && s.allOf.length > 1 ? { ...s, allOf: (s.allOf as S[]).slice(1) } : null),
  excludeLess: (s) => (isObj(s.not) && Array.isArray(s.not.enum) && s.not.enum.length > 1 ? { ...s, not: { enum: (s.not.enum as string[]).slice(1) } } : null),
};

/** Narrowings: nothing new is accepted. */
const NARROWINGS: Record<string, Mutation> = {
  requireExisting: (s) => {
    const props = isObj(s.properties) ? Object.keys(s.properties) : [];
    const free = props.filter((p) => !((s.required as string[] | undefined) ?? []).includes(p));
    return free.length > 0 ? { ...s, required: [...((s.required as string[] | undefined) ?? []), free[0] as string] } : null;
  },
  closeObject: (s) => (s.type === 'object' && s.additionalProperties === undefined ? { ...s, additionalProperties: false } : null),
  removeEnumValue: (s) => (Array.isArray(s.enum) && s.enum.length > 1 ? { ...s, enum: (s.enum as string[]).slice(1) } : null),
  tightenMax: (s, rng) => ('maximum' in s || s.type === 'number' || s.type === 'integer' ? { ...s, maximum: Math.min(typeof s.maximum === 'number' ? s.maximum : 1000, strictlyBetween(rng)) } : null),
  tightenMaxLength: (s) => (s.type === 'string' ? { ...s, maxLength: Math.max(0, (typeof s.maxLength === 'number' ? s.maxLength : 5) - 1) } : null),
  addPattern: (s, rng) => (s.type === 'string' && !('pattern' in s) ? { ...s, pattern: pick(rng, PATTERNS) } : null),
  addMultipleOf: (s) => ((s.type === 'number' || s.type === 'integer') && !('multipleOf' in s) ? { ...s, multipleOf: 2 } : null),
  addUnique: (s) => (s.type === 'array' ? { ...s, uniqueItems: true } : null),
  numberToInteger: (s) => (s.type === 'number' ? { ...s, type: 'integer' } : null),
  dropNull: (s) => (Array.isArray(s.type) && s.type.includes('null') ? { ...s, type: (s.type as string[]).filter((t) => t !== 'null')[0] as string } : null),
  dropAnyOfBranch: (s) => (Array.isArray(s.anyOf) && s.anyOf.length > 1 ? { ...s, anyOf: (s.anyOf as S[]).slice(1) } : null),
  addMinItems: (s) => (s.type === 'array' ? { ...s, minItems: (typeof s.minItems === 'number' ? s.minItems : 0) + 1 } : null),
  addAllOfBranch: (s) => (Array.isArray(s.allOf) ? { ...s, allOf: [...(s.allOf as S[]), { maxLength: 4 }] } : null),
  excludeMore: (s) => (isObj(s.not) && Array.isArray(s.not.enum) ? { ...s, not: { enum: [...new Set([...(s.not.enum as string[]), 'abc'])] } } : null),
};

/** Anything goes: used for the soundness checks, mixed with the above. */
const RESHAPES: Record<string, Mutation> = {
  changeType: (s, rng) => (typeof s.type === 'string' && s.type !== 'object' ? { ...without(s, 'enum'), type: pick(rng, ['string', 'number', 'integer', 'boolean', 'null'].filter((t) => t !== s.type)) } : null),
  swapEnumValue: (s) => (Array.isArray(s.enum) ? { ...s, enum: [...(s.enum as string[]).slice(1), 'zz'] } : null),
  changePattern: (s, rng) => ('pattern' in s ? { ...s, pattern: pick(rng, PATTERNS.filter((p) => p !== s.pattern)) } : null),
  removeProperty: (s) => (isObj(s.properties) && Object.keys(s.properties).length > 0 ? removeProperty(s, Object.keys(s.properties)[0] as string) : null),
  addRequiredProperty: (s) => (s.type === 'object' ? { ...s, properties: { ...(isObj(s.properties) ? s.properties : {}), n: { type: 'number' } }, required: [...new Set([...((s.required as string[] | undefined) ?? []), 'n'])] } : null),
  shiftRange: (s) => (typeof s.minimum === 'number' ? { ...s, minimum: (s.minimum as number) + 1, maximum: (typeof s.maximum === 'number' ? s.maximum : 10) + 3 } : null),
  anyOfToOneOf: (s) => (Array.isArray(s.anyOf) ? { ...without(s, 'anyOf'), oneOf: s.anyOf } : null),
  widenOneOfBranch: (s) => (Array.isArray(s.oneOf) ? { ...s, oneOf: [...(s.oneOf as S[]).slice(1), without(s.oneOf[0] as S, 'type')] } : null),
  multipleOf2to3: (s) => (s.multipleOf === 2 ? { ...s, multipleOf: 3 } : null),
  swapExclusion: (s) => (isObj(s.not) ? { ...s, not: { enum: ['red', 'zz'] } } : null),
  allOfConstraintChanged: (s) => (Array.isArray(s.allOf) ? { ...s, allOf: [...(s.allOf as S[]).slice(1), { minLength: 2 }] } : null),
};

function isObj(v: unknown): v is S {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function without(s: S, key: string): S {
  const { [key]: _drop, ...rest } = s;
  return rest as S;
}
function dropOne(s: S, keys: string[]): S | null {
  const key = keys.find((k) => k in s);
  return key === undefined ? null : without(s, key);
}
function removeProperty(s: S, name: string): S {
  const properties = { ...(s.properties as S) };
  delete properties[name];
  const required = ((s.required as string[] | undefined) ?? []).filter((r) => r !== name);
  return clean({ ...s, properties, required: required.length > 0 ? required : undefined });
}

/**
 * Every subschema node with a way to replace it. Inside `oneOf` a widening can narrow (values
 * start matching two variants) and a narrowing can widen, so pure mutations stay out of it.
 */
function nodes(schema: S, intoOneOf: boolean): Array<{ node: S; replace: (next: S) => S }> {
  const out: Array<{ node: S; replace: (next: S) => S }> = [{ node: schema, replace: (next) => next }];
  const visit = (node: S, replace: (next: S) => S) => {
    if (isObj(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        const put = (next: S) => replace({ ...node, properties: { ...(node.properties as S), [name]: next } });
        out.push({ node: child as S, replace: put });
        visit(child as S, put);
      }
    }
    if (isObj(node.items)) {
      const put = (next: S) => replace({ ...node, items: next });
      out.push({ node: node.items, replace: put });
      visit(node.items, put);
    }
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      if (!Array.isArray(node[key]) || (key === 'oneOf' && !intoOneOf)) continue;
      (node[key] as S[]).forEach((child, i) => {
        const put = (next: S) => replace({ ...node, [key]: (node[key] as S[]).map((c, j) => (j === i ? next : c)) });
        out.push({ node: child, replace: put });
        visit(child, put);
      });
    }
  };
  visit(schema, (next) => next);
  return out;
}

/** Apply 1–3 mutations from `set` at random nodes; null when none applied. */
function mutate(schema: S, set: Record<string, Mutation>, rng: Rng, intoOneOf = false): { schema: S; applied: string[] } | null {
  let current = schema;
  const applied: string[] = [];
  const steps = rng.nextInt(1, 3);
  for (let step = 0; step < steps; step++) {
    const candidates = nodes(current, intoOneOf).flatMap(({ node, replace }) =>
      Object.entries(set).map(([name, m]) => ({ name, run: () => m(node, rng), replace })),
    );
    for (let tries = 0; tries < 20 && candidates.length > 0; tries++) {
      const c = candidates[rng.nextInt(0, candidates.length - 1)] as (typeof candidates)[number];
      const next = c.run();
      if (next === null) continue;
      current = c.replace(next);
      applied.push(c.name);
      break;
    }
  }
  return applied.length === 0 ? null : { schema: current, applied };
}

// ── witnesses ───────────────────────────────────────────────────────────────────────────

const OTHER_TYPES: JsonValue[] = ['s', 7, 2.5, true, null, [], {}];

/** Candidate values for `schema`, with boundaries also drawn from `other` (the parallel node). */
function candidates(schema: unknown, other: unknown, depth = 0): JsonValue[] {
  const s = isObj(schema) ? schema : {};
  const o = isObj(other) ? other : {};
  const out: JsonValue[] = [...OTHER_TYPES];
  const numbers = new Set<number>([0, 1, 2, 3, 4, 6, 0.5, 1.5, -1, -0.5]);
  for (const src of [s, o]) {
    for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
      if (typeof src[k] === 'number') for (const d of [-1, -0.5, 0, 0.5, 1]) numbers.add((src[k] as number) + d);
    }
  }
  out.push(...numbers);
  const lengths = new Set([0, 1, 2, 3, 4, 6, 9]);
  for (const src of [s, o]) for (const k of ['minLength', 'maxLength']) if (typeof src[k] === 'number') for (const d of [-1, 0, 1]) lengths.add(Math.max(0, (src[k] as number) + d));
  for (const n of lengths) out.push('x'.repeat(n), 'A'.repeat(n), '7'.repeat(n));
  out.push('abc', 'ABC', 'a1', 'Zz', 'zz', ...WORDS);
  for (const src of [s, o]) if (Array.isArray(src.enum)) out.push(...(src.enum as JsonValue[]));
  if (depth < 3) {
    const branches = [s, o, ...((s.anyOf as S[] | undefined) ?? []), ...((s.oneOf as S[] | undefined) ?? [])];
    if (branches.some((b) => b.type === 'array' || 'items' in b)) {
      const items = candidates(s.items, o.items, depth + 1).slice(0, 12);
      out.push([], ...items.slice(0, 6).map((v) => [v]), ...items.slice(0, 4).map((v) => [v, v]), [items[0] ?? 1, items[1] ?? 2, items[2] ?? 3]);
    }
    // Objects carry only the names the accepting side declares (callers send declared
    // arguments, servers return declared fields); the other side only lends boundaries.
    const own = [s, ...((s.anyOf as S[] | undefined) ?? []), ...((s.oneOf as S[] | undefined) ?? [])];
    const theirs = [o, ...((o.anyOf as S[] | undefined) ?? []), ...((o.oneOf as S[] | undefined) ?? [])];
    for (const b of own) {
      if (!isObj(b.properties)) continue;
      const parallel = theirs.find((x) => isObj(x.properties)) ?? {};
      out.push(...objectCandidates(b, parallel, depth));
    }
  }
  return out;
}

function objectCandidates(s: S, o: S, depth: number): JsonValue[] {
  const props = s.properties as S;
  const names = Object.keys(props);
  const options = Object.fromEntries(
    names.map((n) => [n, candidates(props[n], isObj(o.properties) ? (o.properties as S)[n] : undefined, depth + 1)]),
  );
  // A base the old schema likely accepts: for each property its first accepted-looking value.
  const base: S = {};
  for (const n of names) base[n] = (options[n] as JsonValue[]).find((v) => typeof v === typeof (props[n] as S).type) ?? (options[n] as JsonValue[])[0] ?? null;
  const out: JsonValue[] = [base, {}];
  for (const n of names) {
    out.push(without(base, n));
    for (const v of (options[n] as JsonValue[]).slice(0, 40)) out.push({ ...base, [n]: v });
  }
  return out;
}

// ── the properties ──────────────────────────────────────────────────────────────────────

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
const compile = (schema: S) => ajv.compile(structuredClone(schema));

async function report(before: S, after: S, field: 'inputSchema' | 'outputSchema', semantic = false): Promise<DiffReport> {
  const wrap = (schema: S): JsonObject => (field === 'inputSchema' ? { name: 't', inputSchema: schema } : { name: 't', inputSchema: { type: 'object' }, outputSchema: schema });
  return diffContracts(contractsOf({ tools: [wrap(before)] }), contractsOf({ tools: [wrap(after)] }), { semantic });
}

/** A value accepted by `accepting` and rejected by `rejecting`, from candidates of both. */
function witness(accepting: S, rejecting: S): JsonValue | undefined {
  const accepts = compile(accepting);
  const rejects = compile(rejecting);
  // Normalized forms are what the diff compares; they must mean the same as the raw schemas.
  for (const value of candidates(accepting, rejecting)) {
    if (accepts(value) && !rejects(value)) return value;
  }
  return undefined;
}

const worst = (r: DiffReport) => SEVERITY_RANK[r.summary.maxSeverity ?? 'COSMETIC'] ?? 0;
const seeded = fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((seed) => new Rng(seed));

describe('classification agrees with a validator (fast-check + ajv)', () => {
  const found = { input: 0, output: 0 };
  /** Pairs actually compared (a draw where no mutation applied is skipped). */
  let compared = 0;

  it('soundness: a value lost by the input schema means BREAKING; a value gained by the output schema means at least RISKY (1,100 draws)', async () => {
    await fc.assert(
      fc.asyncProperty(rootSchema, seeded, async (before, rng) => {
        const mutated = mutate(before, { ...WIDENINGS, ...NARROWINGS, ...RESHAPES }, rng, true);
        if (mutated === null) return;
        compared++;
        const after = mutated.schema;
        const lost = witness(before, after);
        if (lost !== undefined) {
          found.input++;
          const r = await report(before, after, 'inputSchema');
          expect(r.summary.maxSeverity, `input lost ${JSON.stringify(lost)} after ${mutated.applied.join(', ')}\nbefore ${JSON.stringify(before)}\nafter  ${JSON.stringify(after)}`).toBe('BREAKING');
        }
        const gained = witness(after, before);
        if (gained !== undefined) {
          found.output++;
          const r = await report(before, after, 'outputSchema');
          expect(worst(r), `output gained ${JSON.stringify(gained)} after ${mutated.applied.join(', ')}\nbefore ${JSON.stringify(before)}\nafter  ${JSON.stringify(after)}`).toBeGreaterThanOrEqual(SEVERITY_RANK.RISKY);
        }
      }),
      { numRuns: 1_100, plugins: [returnsToEventLoop] },
    );
    // The check is not vacuous: a good share of mixed mutations do lose or gain values.
    console.log(`witnesses found: ${found.input} lost (input), ${found.output} gained (output) in the mixed draws`);
    expect(found.input).toBeGreaterThan(150);
    expect(found.output).toBeGreaterThan(150);
  });

  it('precision: pure input widenings are never BREAKING (600 draws)', async () => {
    await fc.assert(
      fc.asyncProperty(rootSchema, seeded, async (before, rng) => {
        const mutated = mutate(before, WIDENINGS, rng);
        if (mutated === null) return;
        compared++;
        expect(witness(before, mutated.schema), 'the generator must only widen').toBeUndefined();
        const r = await report(before, mutated.schema, 'inputSchema');
        expect(r.summary.maxSeverity, `${mutated.applied.join(', ')}\n${JSON.stringify(before)}\n${JSON.stringify(mutated.schema)}\n${JSON.stringify(r.tools.t?.deltas.map((d) => d.kind))}`).not.toBe('BREAKING');
      }),
      { numRuns: 600, plugins: [returnsToEventLoop] },
    );
  });

  it('precision: pure output narrowings are never RISKY or BREAKING (600 draws)', async () => {
    await fc.assert(
      fc.asyncProperty(rootSchema, seeded, async (before, rng) => {
        const mutated = mutate(before, NARROWINGS, rng);
        if (mutated === null) return;
        compared++;
        expect(witness(mutated.schema, before), 'the generator must only narrow').toBeUndefined();
        const r = await report(before, mutated.schema, 'outputSchema');
        expect(worst(r), `${mutated.applied.join(', ')}\n${JSON.stringify(before)}\n${JSON.stringify(mutated.schema)}\n${JSON.stringify(r.tools.t?.deltas.map((d) => d.kind))}`).toBeLessThan(SEVERITY_RANK.RISKY);
      }),
      { numRuns: 600, plugins: [returnsToEventLoop] },
    );
  });

  it('the semantic cross-check adds no BREAKING to pure input widenings (60 pairs, json-schema-diff on)', async () => {
    await fc.assert(
      fc.asyncProperty(rootSchema, seeded, async (before, rng) => {
        const mutated = mutate(before, WIDENINGS, rng);
        if (mutated === null) return;
        const r = await report(before, mutated.schema, 'inputSchema', true);
        expect(r.summary.maxSeverity, `${mutated.applied.join(', ')}\n${JSON.stringify(before)}\n${JSON.stringify(mutated.schema)}`).not.toBe('BREAKING');
      }),
      { numRuns: 60, plugins: [returnsToEventLoop] },
    );
  });

  it('at least 2,000 generated pairs were compared', () => {
    console.log(`${compared} generated schema pairs compared`);
    expect(compared).toBeGreaterThanOrEqual(2_000);
  });

  it('normalization keeps meaning: raw and normalized schemas accept the same candidates (200 schemas)', async () => {
    await fc.assert(
      fc.asyncProperty(rootSchema, async (schema) => {
        const normalized = normalizeTool({ name: 't', inputSchema: schema }).contract.inputSchema as S;
        const raw = compile(schema);
        const norm = compile(normalized);
        for (const value of candidates(schema, normalized)) expect(norm(value)).toBe(raw(value));
      }),
      { numRuns: 200, plugins: [returnsToEventLoop] },
    );
  });
});
