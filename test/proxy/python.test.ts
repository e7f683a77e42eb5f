/**
 * The proxy around a real Python server (FastMCP, which validates with pydantic). Needs a
 * Python with `fastmcp` installed: MCG_PYTHON names it, else `python3` is tried. Without one,
 * the tests are skipped and their title says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/processes.js';
import { findPython } from '../helpers/python.js';
import { delta } from '../runtime/helpers.js';
import { connect, expectCloseLeavesNothing, jsonLines, proxyArgs, scratch, textOf, writeArtifact, type Connected } from './helpers.js';

const { python, skip } = findPython();
const SERVER = [python, fixture('fastmcp_inventory.py')];

describe.skipIf(skip !== '')(`proxy around a FastMCP server (Python)${skip ? ` — ${skip}` : ''}`, () => {
  const files = scratch();
  const artifact = writeArtifact(files.file('deltas.json'), {
    create_order: [
      delta({ field: 'inputSchema.properties.currency', kind: 'required-property-added', message: 'Property "currency" was added and is required.', current: { enum: ['USD', 'EUR', 'GBP'], type: 'string' } }),
    ],
  });
  const log = files.file('calls.jsonl');
  let proxied: Connected;
  let direct: Connected;

  beforeAll(async () => {
    [proxied, direct] = await Promise.all([connect(process.execPath, proxyArgs(['--artifact', artifact, '--log', log], SERVER)), connect(SERVER[0] as string, SERVER.slice(1))]);
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
    files.remove();
  });

  it('lists the same tools and returns the same results, including for arguments pydantic coerces', async () => {
    expect(await proxied.client.listTools()).toEqual(await direct.client.listTools());
    for (const call of [
      { name: 'add', arguments: { a: 2, b: 3 } },
      // "5" is not an integer to JSON Schema, but pydantic accepts it: the proxy lets the server decide.
      { name: 'add', arguments: { a: '5', b: 2 } },
      { name: 'create_order', arguments: { sku: 'P-1', quantity: 1, currency: 'GBP' } },
    ]) {
      const result = await proxied.client.callTool(call);
      expect(result).toEqual(await direct.client.callTool(call));
      expect(result.isError).toBeFalsy();
    }
    expect(textOf(await proxied.client.callTool({ name: 'add', arguments: { a: '5', b: 2 } }))).toBe('7');
  });

  it('answers a call shaped for the old contract with the enriched error, without the server', async () => {
    const result = await proxied.client.callTool({ name: 'create_order', arguments: { sku: 'P-2', quantity: 1 } });
    const text = textOf(result);
    expect(result.isError).toBe(true);
    expect(text).toContain('<field name="currency">Missing. Expected: string, one of "USD", "EUR", "GBP".</field>');
    expect(text).toContain('<contract_awareness>');
    const line = jsonLines(log).find((entry) => entry.tool === 'create_order' && entry.outcome !== 'passed');
    expect(line).toMatchObject({ outcome: 'blocked', fields: ['currency'] });
  });

  it("reports a discriminated union's errors for the branch the call chose, and a wrong or missing discriminator as one line", async () => {
    const fields = async (method: Record<string, unknown>) => {
      const result = await proxied.client.callTool({ name: 'pay', arguments: { method, amount: 5 } });
      expect(result.isError).toBe(true);
      const text = textOf(result);
      return { lines: [...text.matchAll(/<field name="[^"]*">[^<]*<\/field>/g)].map((m) => m[0]), example: /<example>(.*)<\/example>/.exec(text)?.[1] };
    };
    // Not: "method.iban Missing", "method.type … You sent: "card". Expected: exactly "bank"", "method Matches none of the allowed shapes".
    expect(await fields({ type: 'card', number: '1234' })).toEqual({
      lines: [
        '<field name="method.cvc">Missing. Expected: string with exactly 3 characters.</field>',
        '<field name="method.number">Does not match the pattern. You sent: "1234". Expected: string matching the pattern ^\\d{16}$.</field>',
      ],
      // No card number matches a sample: no example, rather than one that switches the call to the bank branch.
      example: undefined,
    });
    expect((await fields({ type: 'paypal', email: 'a@b.c' })).lines).toEqual([
      '<field name="method.type">Not an allowed value. You sent: "paypal". Expected: one of "card", "bank".</field>',
    ]);
    expect((await fields({ number: '1234123412341234', cvc: '123' })).lines).toEqual(['<field name="method.type">Missing. Expected: one of "card", "bank".</field>']);
    // memo is `string (at most 20) | null`: a too-long string is not also "Wrong type" (the null branch's error).
    const memo = await proxied.client.callTool({ name: 'pay', arguments: { method: { type: 'bank', iban: 'DE89' }, amount: 5, memo: 'x'.repeat(21) } });
    expect([...textOf(memo).matchAll(/<field name="[^"]*">[^<]*<\/field>/g)].map((m) => m[0])).toEqual([
      `<field name="memo">Too long. You sent: "${'x'.repeat(21)}". Expected: (string with at most 20 characters) or (null).</field>`,
    ]);
    const valid = await proxied.client.callTool({ name: 'pay', arguments: { method: { type: 'bank', iban: 'DE89' }, amount: 5 } });
    expect(textOf(valid)).toBe('paid 5.0 by bank');
  });

  it("with --no-validate, explains FastMCP's pydantic error field by field", async () => {
    const unchecked = await connect(process.execPath, proxyArgs(['--artifact', artifact, '--no-validate'], SERVER));
    try {
      const call = { name: 'create_order', arguments: { sku: 'P-3', quantity: 0 } };
      const bare = textOf(await direct.client.callTool(call));
      expect(bare).toMatch(/^2 validation errors for call\[create_order\]\nquantity\n {2}Input should be greater than or equal to 1 \[type=greater_than_equal/);
      const text = textOf(await unchecked.client.callTool(call));
      expect(text).toContain('<validation_error tool="create_order">');
      expect(text).toContain('<field name="quantity">Too small. You sent: 0. Expected: integer of at least 1.</field>');
      expect(text).toContain('<field name="currency">Missing.');
      expect(text).toContain('<contract_awareness>');
      expect(text).not.toContain('errors.pydantic.dev');
    } finally {
      await unchecked.close();
    }
  });

  it("with --no-validate, reads pydantic's union locations as argument paths: the branch tag is not a field", async () => {
    const unchecked = await connect(process.execPath, proxyArgs(['--artifact', artifact, '--no-validate'], SERVER));
    try {
      const lines = async (method: Record<string, unknown>) => {
        const call = { name: 'pay', arguments: { method, amount: 5 } };
        return [...textOf(await unchecked.client.callTool(call)).matchAll(/<field name="[^"]*">[^<]*<\/field>/g)].map((m) => m[0]);
      };
      // pydantic: "method.card.cvc  Field required", "method.card.number  String should match pattern…".
      expect(await lines({ type: 'card', number: '1234' })).toEqual([
        '<field name="method.number">Does not match the pattern. You sent: "1234". Expected: string matching the pattern ^\\d{16}$.</field>',
        '<field name="method.cvc">Missing. Expected: string with exactly 3 characters.</field>',
      ]);
      // pydantic: "method  Input tag 'paypal' found using 'type' does not match any of the expected tags: 'card', 'bank'".
      expect(await lines({ type: 'paypal', email: 'a@b.c' })).toEqual([
        '<field name="method.type">Not an allowed value. You sent: "paypal". Expected: one of "card", "bank".</field>',
      ]);
      // pydantic: "method  Unable to extract tag using discriminator 'type'".
      expect(await lines({ iban: 'DE89' })).toEqual(['<field name="method.type">Missing. Expected: one of "card", "bank".</field>']);
    } finally {
      await unchecked.close();
    }
  });

  it('closing the client leaves neither the proxy nor the Python server running', async () => {
    const once = await connect(process.execPath, proxyArgs([], SERVER));
    await once.client.listTools();
    await expectCloseLeavesNothing(once);
  });
});
