import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { returnsToEventLoop } from '../helpers/timing.js';
import { contractsOfFile, parseContractsFile } from '../../src/compile/dump.js';
import { entryDigest, sha256 } from '../../src/contract/canonical.js';
import { parseLockfile } from '../../src/contract/lockfile.js';
import { ENTRY_KINDS, type Contracts, type EntryKind, type JsonObject, type JsonValue, type RawCapture } from '../../src/contract/model.js';
import { normalizeCapture, normalizeDifferences, normalizeTool } from '../../src/contract/normalize.js';
import { diffContracts } from '../../src/diff/index.js';
import { canonicalJson } from '../../src/protocol/index.js';
import { normalizeSchema } from '../../src/contract/schema.js';

function capture(tools: JsonObject[], extra: Partial<RawCapture> = {}): RawCapture {
  return { server: { name: 's' }, protocolVersion: '2025-11-25', era: 'legacy', tools, prompts: [], resources: [], resourceTemplates: [], ...extra };
}

const draft07Tool: JsonObject = {
  name: 'search',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    required: ['query', 'filters'],
    properties: {
      query: { type: 'string', minLength: 0 },
      filters: { $ref: '#/definitions/Filters' },
      point: { type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false },
      kind: { enum: ['b', 'a', 'a'] },
      strict: { type: ['boolean'] },
    },
    additionalProperties: true,
    dependencies: { query: ['filters'] },
    definitions: {
      Filters: { type: 'object', properties: { lang: { type: 'string' } }, additionalProperties: false },
    },
  },
};

const draft2020Tool: JsonObject = {
  inputSchema: {
    properties: {
      strict: { type: 'boolean' },
      kind: { enum: ['a', 'b'] },
      point: { prefixItems: [{ type: 'number' }, { type: 'number' }], items: false, type: 'array' },
      filters: { $ref: '#/$defs/Filters' },
      query: { type: 'string' },
    },
    dependentRequired: { query: ['filters'] },
    required: ['filters', 'query'],
    type: 'object',
    $defs: { Filters: { additionalProperties: false, properties: { lang: { type: 'string' } }, type: 'object' } },
  },
  name: 'search',
};

/**
 * Canonical JSON of a copy: normalization vouches that its contracts are canonical (canonicalJson
 * then writes them as they are), so the check must look at an object nobody vouched for.
 */
const canonicalCopy = (value: unknown) => canonicalJson(JSON.parse(JSON.stringify(value)));

describe('normalizeCapture', () => {
  it('gives byte-identical contracts for draft-07 and 2020-12 spellings of one schema', () => {
    const a = normalizeCapture(capture([draft07Tool])).contracts;
    const b = normalizeCapture(capture([draft2020Tool])).contracts;
    expect(canonicalJson(a.tools.search?.contract)).toBe(canonicalJson(b.tools.search?.contract));
    // The declared dialect is kept beside the contract, not inside it.
    expect(a.tools.search?.dialects).toEqual({ inputSchema: 'http://json-schema.org/draft-07/schema#' });
    expect(b.tools.search?.dialects).toBeUndefined();
  });

  it('inlines local $refs and upgrades draft-07 keywords', () => {
    const { contract } = normalizeTool(draft07Tool);
    expect(contract.inputSchema).toEqual({
      type: 'object',
      required: ['filters', 'query'],
      dependentRequired: { query: ['filters'] },
      properties: {
        filters: { type: 'object', properties: { lang: { type: 'string' } }, additionalProperties: false },
        kind: { enum: ['a', 'b'] },
        point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
        query: { type: 'string' },
        strict: { type: 'boolean' },
      },
    });
  });

  it('makes annotation and execution defaults explicit', () => {
    const bare = normalizeTool({ name: 't', inputSchema: { type: 'object' } }).contract;
    const explicit = normalizeTool({
      name: 't',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      execution: { taskSupport: 'forbidden' },
    }).contract;
    expect(canonicalJson(bare)).toBe(canonicalJson(explicit));
    expect(bare.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  });

  it('keeps recursive schemas finite, with one $defs entry per recursive target', () => {
    const tool = {
      name: 'tree',
      inputSchema: {
        type: 'object',
        properties: { root: { $ref: '#/definitions/Node' } },
        definitions: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/definitions/Node' } } } } },
      },
    };
    const schema = normalizeTool(tool).contract.inputSchema as JsonObject;
    expect(schema.$defs).toEqual({
      Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } } },
    });
    expect((schema.properties as JsonObject).root).toEqual(schema.$defs && (schema.$defs as JsonObject).Node);
  });

  it('handles mutual recursion and a self-referencing root', () => {
    const { schema } = normalizeSchema({
      type: 'object',
      properties: { a: { $ref: '#/$defs/A' }, self: { $ref: '#' } },
      $defs: { A: { properties: { b: { $ref: '#/$defs/B' } } }, B: { properties: { a: { $ref: '#/$defs/A' } } } },
    });
    const text = canonicalJson(schema);
    expect(text).toContain('"$ref":"#"');
    expect(Object.keys((schema as JsonObject).$defs as JsonObject)).toEqual(['A']);
  });

  it('reports but keeps a $ref that does not resolve', () => {
    const result = normalizeSchema({ type: 'object', properties: { x: { $ref: '#/$defs/Missing' } } });
    expect(result.problems).toEqual(['$ref "#/$defs/Missing" does not resolve inside the schema; kept as is']);
    expect(((result.schema as JsonObject).properties as JsonObject).x).toEqual({ $ref: '#/$defs/Missing' });
  });

  it('treats reordered keys, required and union branches as notation', () => {
    const a = normalizeSchema({ anyOf: [{ type: 'string' }, { type: 'number' }], required: ['b', 'a'], type: 'object' }).schema;
    const b = normalizeSchema({ type: 'object', required: ['a', 'b'], anyOf: [{ type: 'number' }, { type: 'string' }] }).schema;
    expect(canonicalJson(a)).toBe(canonicalJson(b));
  });

  it('lists enum values in the order of their JSON texts, each once (a space sorts before the closing quote)', () => {
    const enumOf = (values: JsonValue[]) => (normalizeSchema({ enum: values }).schema as JsonObject).enum;
    // "a b" < "a": the text of "a" ends with a quote (0x22) where "a b" goes on with a space (0x20).
    expect(enumOf(['a', 'a b', 'b'])).toEqual(['a b', 'a', 'b']);
    expect(enumOf(['a!', 'a', 'a#'])).toEqual(['a!', 'a', 'a#']);
    expect(enumOf(['b', 'a', 'b', 'A'])).toEqual(['A', 'a', 'b']);
    // A quote or backslash is written escaped, and sorts as its escape: a backslash after the closing quote.
    expect(enumOf(['x\\n', 'x"', 'x'])).toEqual(['x', 'x"', 'x\\n']);
    expect(enumOf(['é', 'e', '😀', 'z'])).toEqual(['e', 'z', 'é', '😀']);
    expect(enumOf([2, 'a', 10, null])).toEqual(['a', 10, 2, null]);
  });

  it('reads a keyword an in-memory schema sets to undefined as it always has: a subschema that is not one is said', () => {
    // Not JSON (a schema built in a process, as the runtime's are): a keyword may be there, undefined.
    const { schema, problems } = normalizeSchema({ type: 'object', not: undefined, minLength: undefined, title: undefined });
    expect(JSON.parse(JSON.stringify(schema))).toEqual({ not: {}, type: 'object' });
    expect(problems).toEqual(['a subschema is a undefined, not a JSON Schema']);
  });

  it('keeps what changes acceptance', () => {
    const base = canonicalJson(normalizeSchema({ type: 'object', properties: { a: { type: 'string' } } }).schema);
    for (const changed of [
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      { type: 'object', properties: { a: { type: 'string', minLength: 1 } } },
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      { type: 'object', properties: { a: { type: 'string', contains: {} } } },
    ]) {
      expect(canonicalJson(normalizeSchema(changed).schema)).not.toBe(base);
    }
  });

  it('keeps unknown fields exactly as sent, and lints schemas MCP would reject', () => {
    const { contracts, warnings } = normalizeCapture(
      capture([
        { name: 'bare', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema' }, 'x-owner': { team: 'a' } },
        { name: 'bare', inputSchema: { type: 'object' } },
        { description: 'no name' },
      ]),
    );
    expect(contracts.tools.bare?.contract['x-owner']).toEqual({ team: 'a' });
    expect(contracts.tools.bare?.contract.inputSchema).toEqual({});
    expect(warnings.map((w) => `${w.entry} ${w.message}`)).toEqual([
      'tool "bare" inputSchema does not declare "type": "object" as MCP requires; compiled as sent',
      'tool "bare" is listed twice; the first definition is kept',
      'tools[2] has no "name"; skipped',
    ]);
  });

  it('sorts prompt arguments and makes `required` explicit', () => {
    const { contracts } = normalizeCapture(capture([], { prompts: [{ name: 'p', arguments: [{ name: 'z' }, { name: 'a', required: true }] }] }));
    expect(contracts.prompts.p?.contract.arguments).toEqual([
      { name: 'a', required: true },
      { name: 'z', required: false },
    ]);
  });

  it('keys resources by uri and templates by uriTemplate', () => {
    const { contracts } = normalizeCapture(
      capture([], { resources: [{ uri: 'file:///a', name: 'a' }], resourceTemplates: [{ uriTemplate: 'file:///{p}', name: 't' }] }),
    );
    expect(Object.keys(contracts.resources)).toEqual(['file:///a']);
    expect(Object.keys(contracts.resourceTemplates)).toEqual(['file:///{p}']);
  });
});

/**
 * Every committed capture (the published servers' dumps) and the example's lockfile (whose
 * contracts, read as a capture, are normalized by today's rules), normalized.
 */
const FIXTURES = new URL('../fixtures/real-world/', import.meta.url);
const dumps = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort();
const committed = (): Array<[string, Contracts]> => [
  ...dumps.map((file): [string, Contracts] => [file, contractsOfFile(parseContractsFile(readFileSync(new URL(file, FIXTURES), 'utf8'), file)).contracts]),
  ['examples/inventory lockfile', normalizeCapture(asCapture(parseLockfile(readFileSync(new URL('../../examples/inventory/mcp-contracts.lock.json', import.meta.url), 'utf8'), 'lockfile'))).contracts],
];

/** Normalized contracts as a capture again: what normalizing them a second time reads. */
function asCapture(contracts: Contracts): RawCapture {
  const items = (kind: EntryKind) => Object.values(contracts[kind]).map((entry) => entry.contract);
  return { ...capture(items('tools')), prompts: items('prompts'), resources: items('resources'), resourceTemplates: items('resourceTemplates') };
}

describe('normalization on every committed fixture', () => {
  it('is idempotent: normalize(normalize(x)) = normalize(x)', () => {
    expect(dumps.length).toBeGreaterThan(40);
    for (const [name, contracts] of committed()) {
      const again = normalizeCapture(asCapture(contracts)).contracts;
      for (const kind of ENTRY_KINDS) {
        expect(Object.keys(again[kind]), `${name} ${kind}`).toEqual(Object.keys(contracts[kind]));
        for (const [key, entry] of Object.entries(contracts[kind])) {
          expect(canonicalJson(again[kind][key]?.contract), `${name} ${kind}.${key}`).toBe(canonicalJson(entry.contract));
        }
      }
    }
  });

  it('builds each contract in canonical form, and its digest is that of its canonical JSON', () => {
    for (const [name, contracts] of committed()) {
      for (const kind of ENTRY_KINDS) {
        for (const [key, entry] of Object.entries(contracts[kind])) {
          // JSON.stringify writes keys in the order they were built: canonical order, at every level.
          expect(JSON.stringify(entry.contract), `${name} ${kind}.${key}`).toBe(canonicalCopy(entry.contract));
          expect(entryDigest(entry), `${name} ${kind}.${key}`).toBe(sha256(canonicalJson(entry.contract)));
        }
      }
    }
  });

  it('is built in canonical form for any schema, whatever the conventions rewrite (fast-check, 400 schemas)', async () => {
    const scalar = fc.constantFrom<JsonValue>('a', 'b', 'zz', 1, 2.5, true, null);
    // Schemas up to `depth` levels deep, with the keywords the conventions rewrite.
    const schemaOf = (depth: number): fc.Arbitrary<JsonObject> => {
      // What the conventions look for, often enough to be drawn: lists of values, object parts.
      const valueList = fc.oneof(
        scalar.map((v): JsonObject => ({ const: v })),
        fc.array(fc.constantFrom('a', 'b', 'zz'), { minLength: 1, maxLength: 3 }).map((e): JsonObject => ({ type: 'string', enum: e })),
        fc.constantFrom('a', 'b').map((v): JsonObject => ({ type: 'string', const: v })),
      );
      const leaf = fc.oneof(valueList, fc.constant<JsonObject>({ type: 'string' }));
      const deeper = depth === 0 ? leaf : schemaOf(depth - 1);
      const objectPart = fc
        .record({ type: fc.constant('object'), properties: fc.dictionary(fc.constantFrom('z', 'a', 'm'), deeper, { maxKeys: 2 }), required: fc.subarray(['z', 'a']) }, { requiredKeys: ['properties'] })
        .map((r) => r as JsonObject);
      const sub = fc.oneof(leaf, objectPart, deeper);
      return fc
        .record(
          {
            type: fc.oneof(fc.constantFrom('string', 'integer', 'number', 'object', 'null'), fc.subarray(['string', 'integer', 'number', 'null'], { minLength: 1 })),
            const: scalar,
            enum: fc.array(scalar, { minLength: 1, maxLength: 3 }),
            minimum: fc.constantFrom(0, 1, 9007199254740991, -9007199254740991),
            exclusiveMinimum: fc.constantFrom(0, 0.5),
            description: fc.constantFrom('d', 'e'),
            properties: fc.dictionary(fc.constantFrom('z', 'a', 'm'), sub, { maxKeys: 2 }),
            required: fc.subarray(['z', 'a', 'm']),
            anyOf: fc.array(sub, { minLength: 2, maxLength: 3 }),
            oneOf: fc.array(sub, { minLength: 2, maxLength: 2 }),
            allOf: fc.array(sub, { minLength: 1, maxLength: 2 }),
            propertyNames: fc.constant({ type: 'string' }),
          },
          { requiredKeys: [] },
        )
        .map((record) => record as JsonObject);
    };
    const schema = schemaOf(2);
    await fc.assert(
      fc.asyncProperty(schema, async (input) => {
        const { contracts } = normalizeCapture(capture([{ name: 't', inputSchema: { type: 'object', properties: { p: input } } }]));
        const entry = contracts.tools.t!;
        expect(JSON.stringify(entry.contract)).toBe(canonicalCopy(entry.contract));
      }),
      { numRuns: 400, plugins: [returnsToEventLoop] },
    );
  });

  it('writes the data a schema carries (default, examples, const, enum) in canonical order too', () => {
    const { contracts } = normalizeCapture(
      capture([{ name: 't', inputSchema: { type: 'object', properties: { p: { default: { b: 1, a: [{ d: 1, c: 2 }] }, enum: [{ y: 1, x: 2 }, 'z'] } } } }]),
    );
    const entry = contracts.tools.t!;
    expect(JSON.stringify(entry.contract.inputSchema)).toBe('{"properties":{"p":{"default":{"a":[{"c":2,"d":1}],"b":1},"enum":["z",{"x":2,"y":1}]}},"type":"object"}');
    expect(entryDigest(entry)).toBe(sha256(canonicalJson(entry.contract)));
  });
});

describe('normalizeDifferences', () => {
  it('shares exactly the entries both captures define identically as sent; read, they are what normalizing alone gives', () => {
    const same = { name: 'same', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } };
    const reordered = { inputSchema: { properties: { a: { type: 'string' } }, type: 'object' }, name: 'same' };
    const previous = capture([same, { name: 'changed', description: 'old' }, { name: 'gone' }, { inputSchema: {} }], { prompts: [{ name: 'p' }] });
    const current = capture([reordered, { name: 'changed', description: 'new' }, { name: 'new' }, { inputSchema: {} }], {
      prompts: [{ name: 'p' }, { name: 'p', description: 'a second definition, ignored' }],
    });
    const [before, after] = normalizeDifferences(previous, current);
    expect(after.contracts.tools.same).toBe(before.contracts.tools.same);
    expect(after.contracts.prompts.p).toBe(before.contracts.prompts.p);
    expect(after.contracts.tools.changed).not.toBe(before.contracts.tools.changed);
    // Read, the shared entries are the contracts normalizing each capture alone gives.
    for (const [kept, alone] of [[before, normalizeCapture(previous)], [after, normalizeCapture(current)]] as const) {
      expect(canonicalJson(kept.contracts)).toBe(canonicalJson(alone.contracts));
      expect(entryDigest(kept.contracts.tools.same!)).toBe(entryDigest(alone.contracts.tools.same!));
    }
    expect(after.warnings).toContainEqual({ entry: 'prompt "p"', message: 'is listed twice; the first definition is kept' });
  });

  it('changes no report: every pair of releases of a published server diffs the same as with each capture normalized alone', async () => {
    const byServer = new Map<string, string[]>();
    for (const file of dumps) byServer.set(file.split('@')[0]!, [...(byServer.get(file.split('@')[0]!) ?? []), file]);
    let pairs = 0;
    for (const files of byServer.values()) {
      for (let i = 1; i < files.length; i++) {
        const [p, c] = [files[i - 1]!, files[i]!].map((file) => parseContractsFile(readFileSync(new URL(file, FIXTURES), 'utf8'), file));
        if (p?.kind !== 'dump' || c?.kind !== 'dump') throw new Error('expected dumps');
        const alone = await diffContracts(normalizeCapture(p.capture).contracts, normalizeCapture(c.capture).contracts, { semantic: false });
        const [before, after] = normalizeDifferences(p.capture, c.capture);
        const shared = await diffContracts(before.contracts, after.contracts, { semantic: false });
        expect(canonicalJson(shared), `${files[i - 1]} → ${files[i]}`).toBe(canonicalJson(alone));
        pairs++;
      }
    }
    expect(pairs).toBeGreaterThan(25);
  });
});
