import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { renderArtifact } from '../../src/report/artifact.js';
import { loadDeltaMap, withSelfHealing } from '../../src/runtime/index.js';
import { brief, diffTools, inputDeltas, tool } from './helpers.js';

const branch = (action: string, properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties: { action: { type: 'string', const: action }, ...properties },
  required: ['action', ...required],
  additionalProperties: false,
});

const before = {
  type: 'object',
  oneOf: [
    branch('create', { amount: { type: 'number' }, status: { type: 'string' } }, ['amount']),
    branch('list', { limit: { type: 'integer', maximum: 100 } }),
    branch('delete', { id: { type: 'string' } }, ['id']),
  ],
};
const after = {
  type: 'object',
  oneOf: [
    branch('create', { amount: { type: 'number' }, status: { type: 'string' }, currency: { type: 'string' } }, ['amount', 'currency']),
    branch('list', { limit: { type: 'integer', maximum: 50 } }),
    branch('archive', { id: { type: 'string' } }, ['id']),
  ],
};

describe('discriminated tools', () => {
  it('deltas inside a branch carry the action and an actions.<value>.inputSchema field', async () => {
    const deltas = await inputDeltas(before, after);
    expect(brief(deltas)).toEqual([
      'required-property-added@actions.create.inputSchema.properties.currency=BREAKING',
      'action-removed@actions.delete.inputSchema=BREAKING',
      'number-range-narrowed@actions.list.inputSchema.properties.limit.maximum=BREAKING',
      'action-added@actions.archive.inputSchema=SAFE',
    ]);
    expect(deltas.map((d) => d.action)).toEqual(['create', 'delete', 'list', 'archive']);
    expect(deltas[0]?.message).toBe('arguments of action "create": new required property "currency".');
  });

  it('branches are matched by discriminator even when normalization reorders them', async () => {
    // Renaming a field changes the sorted position of the "create" branch.
    const moved = { type: 'object', anyOf: [branch('create', { zzz: { type: 'string' } }), branch('list', {})] };
    const original = { type: 'object', anyOf: [branch('create', { aaa: { type: 'string' } }), branch('list', {})] };
    const deltas = await inputDeltas(original, moved);
    expect(deltas.every((d) => d.action === 'create')).toBe(true);
    // Same schema under a new name: one rename, inside the "create" action.
    expect(brief(deltas)).toEqual(['property-renamed@actions.create.inputSchema.properties.zzz=BREAKING']);
    expect(deltas[0]).toMatchObject({ previous: 'aaa', current: 'zzz' });
  });

  it('a nested discriminated union names branches by value but has no action', async () => {
    const nested = (max: number) => ({
      type: 'object',
      properties: { payment: { oneOf: [branch('card', { number: { type: 'string', maxLength: max } }), branch('iban', { iban: { type: 'string' } })] } },
    });
    const deltas = await inputDeltas(nested(19), nested(16));
    expect(brief(deltas)).toEqual(['length-range-narrowed@inputSchema.properties.payment.oneOf.card.properties.number.maxLength=BREAKING']);
    expect(deltas[0]?.action).toBeNull();
  });

  it('shared root properties stay global (action null)', async () => {
    const withShared = (type: string) => ({ ...before, properties: { tenant: { type } } });
    const deltas = await inputDeltas(withShared('string'), withShared('integer'));
    expect(brief(deltas)).toEqual(['type-changed@inputSchema.properties.tenant.type=BREAKING']);
    expect(deltas[0]?.action).toBeNull();
  });
});

describe('a union whose branches share a constant besides their discriminator', () => {
  // {api: "v1", type: "a" | "b"}: `api` is constant in every branch, so it discriminates nothing;
  // the diff and the runtime must both pick `type`, by the one definition the artifact records.
  const versioned = (type: string, properties: Record<string, unknown>, required: string[] = []) => ({
    type: 'object',
    properties: { api: { type: 'string', const: 'v1' }, type: { type: 'string', const: type }, ...properties },
    required: ['api', 'type', ...required],
  });
  const v1 = { type: 'object', oneOf: [versioned('a', { q: { type: 'string' } }), versioned('b', { n: { type: 'number' } })] };
  const v2 = { type: 'object', oneOf: [versioned('a', { q: { type: 'string' }, limit: { type: 'integer' } }, ['limit']), versioned('b', { n: { type: 'number' } })] };

  it('scopes the change to action "a", records "type" in the artifact, and the runtime shows it on a call to "a" only', async () => {
    const report = await diffTools([tool(v1)], [tool(v2)]);
    expect(report.tools.t?.discriminator).toBe('type');
    expect(brief(report.tools.t?.deltas ?? [])).toEqual(['required-property-added@actions.a.inputSchema.properties.limit=BREAKING']);
    const deltas = loadDeltaMap(renderArtifact(report));

    const server = new McpServer({ name: 'versioned', version: '2.0.0' });
    server.registerTool(
      't',
      {
        inputSchema: z.discriminatedUnion('type', [
          z.object({ api: z.literal('v1'), type: z.literal('a'), q: z.string().optional(), limit: z.number().int() }),
          z.object({ api: z.literal('v1'), type: z.literal('b'), n: z.number().optional() }),
        ]),
      },
      async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await withSelfHealing(server, { deltas }).connect(serverSide);
    await client.connect(clientSide);
    try {
      const text = (call: Record<string, unknown>) =>
        client.callTool({ name: 't', arguments: call }).then((result) => (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n'));
      const oldShaped = await text({ api: 'v1', type: 'a', q: 'x' });
      expect(oldShaped).toContain('<validation_error tool="t" action="a">');
      expect(oldShaped).toContain('<delta severity="BREAKING" kind="required-property-added" field="limit" action="a"/>');
      // Action "b" did not change: a bad call to it is not told about "a".
      const otherAction = await text({ api: 'v1', type: 'b', n: 'not a number' });
      expect(otherAction).toContain('action="b"');
      expect(otherAction).not.toContain('kind="required-property-added"');
    } finally {
      await client.close();
      await server.close();
    }
  });
});
