import { describe, expect, it } from 'vitest';
import { brief, inputDeltas } from './helpers.js';

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
