import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/contract/canonical.js';
import type { JsonObject, RawCapture } from '../../src/contract/model.js';
import { normalizeCapture, normalizeTool } from '../../src/contract/normalize.js';
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
