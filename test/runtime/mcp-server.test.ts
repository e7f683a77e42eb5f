import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { callWithSelfHealing, correctedCall, loadDeltaMap, toolError, withSelfHealing, type CorrectionRequest, type WithSelfHealingOptions } from '../../src/runtime/index.js';
import { correctFromFieldLines, delta, report } from './helpers.js';

const require = createRequire(import.meta.url);

/** The artifact `diff v1 v2 --artifact` would write for the servers below. */
const deltas = loadDeltaMap(
  report({
    create_order: [
      delta({
        field: 'inputSchema.properties.currency',
        kind: 'required-property-added',
        message: 'Property "currency" was added and is required.',
        current: { type: 'string', enum: ['USD', 'EUR', 'GBP'], description: 'ISO 4217 currency of the order' },
        hint: 'Send "currency" on every call.',
      }),
      delta({ field: 'inputSchema.properties.note', severity: 'SAFE', kind: 'optional-property-added' }),
    ],
    orders: [
      delta({ field: 'actions.create.inputSchema.properties.email', action: 'create', kind: 'required-property-added', current: { type: 'string', format: 'email' } }),
      delta({ field: 'actions.createAll.inputSchema.properties.items', action: 'createAll' }),
    ],
    ship: [
      delta({ field: 'inputSchema.properties.parcels.minItems', kind: 'item-count-range-narrowed', previous: null, current: 1 }),
      delta({ field: 'inputSchema.properties.parcels.items.properties.weight.exclusiveMinimum', kind: 'number-range-narrowed', previous: null, current: 0 }),
    ],
    late_tool: [delta({ field: 'inputSchema.properties.level', kind: 'required-property-added', current: { type: 'integer', minimum: 1 } })],
    check_stock: [delta({ field: 'name', kind: 'tool-renamed', message: 'Tool "get_stock" was renamed to "check_stock".', renamedFrom: 'get_stock', renamedTo: 'check_stock' })],
    delete_order: [delta({ field: '', kind: 'tool-removed', message: 'Tool "delete_order" was removed.' })],
  }),
);

function createV2Server(options?: { maxToolInputElements?: number }): McpServer {
  const server = new McpServer({ name: 'inventory', version: '2.0.0' }, options);
  server.registerTool(
    'create_order',
    {
      description: 'Create an order for a product.',
      inputSchema: {
        sku: z.string().min(1),
        quantity: z.number().int().min(1),
        currency: z.enum(['USD', 'EUR', 'GBP']).describe('ISO 4217 currency of the order'),
        note: z.string().max(500).optional(),
      },
    },
    async ({ sku, quantity, currency }) => ({ content: [{ type: 'text', text: `ordered ${quantity} ${sku} in ${currency}` }] }),
  );
  server.registerTool(
    'orders',
    {
      description: 'Multi-action order tool.',
      inputSchema: z.discriminatedUnion('action', [
        z.object({ action: z.literal('create'), email: z.email() }),
        z.object({ action: z.literal('createAll'), items: z.array(z.string()).min(1) }),
      ]),
    },
    async (args) => ({ content: [{ type: 'text', text: `ok ${JSON.stringify(args)}` }] }),
  );
  server.registerTool(
    'ship',
    {
      inputSchema: {
        address: z.object({ street: z.string(), city: z.string(), zip: z.string().optional() }),
        parcels: z.array(z.object({ weight: z.number().positive() })).min(1),
      },
    },
    async () => ({ content: [{ type: 'text', text: 'shipped' }] }),
  );
  server.registerTool(
    'pay',
    {
      inputSchema: {
        method: z.discriminatedUnion('type', [
          z.object({ type: z.literal('card'), number: z.string().regex(/^\d{16}$/) }),
          z.object({ type: z.literal('bank'), iban: z.string() }),
        ]),
      },
    },
    async ({ method }) => ({ content: [{ type: 'text', text: `paid by ${method.type}` }] }),
  );
  server.registerTool('get_stock', { inputSchema: { sku: z.string().min(1) } }, async ({ sku }) => ({ content: [{ type: 'text', text: `${sku}: 12` }] }));
  server.registerTool('refuse', { inputSchema: { id: z.string() } }, async () => toolError('NotFound', { message: 'No such order.' }));
  server.registerTool('crash', { inputSchema: { id: z.string() } }, async () => {
    throw new Error('database is down');
  });
  return server;
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function connect(server: McpServer): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  open.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content.map((part) => part.text ?? '').join('\n');
}

async function healed(options: Partial<WithSelfHealingOptions> = {}): Promise<Client> {
  return connect(withSelfHealing(createV2Server(), { deltas, ...options }));
}

describe('withSelfHealing on a real McpServer', () => {
  it('answers v1-shaped arguments with an enriched <validation_error> naming the new required field', async () => {
    const client = await healed();
    const result = await client.callTool({ name: 'create_order', arguments: { sku: 'A-1', quantity: 2 } });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toBe(
      [
        '<validation_error tool="create_order">',
        '<field name="currency">Missing. Expected: string, one of "USD", "EUR", "GBP".</field>',
        '<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>',
        // A valid v2 call, from the input schema the server lists.
        '<example>{"sku":"example","quantity":1,"currency":"USD"}</example>',
        '<contract_awareness>',
        '<system_note>Contract changed since you last read it.</system_note>',
        // SAFE deltas stay out by default.
        '<change_count>1</change_count>',
        '<max_severity>BREAKING</max_severity>',
        '<instructions>Do not resend old arguments.</instructions>',
        '<contract_deltas>',
        '<delta severity="BREAKING" kind="required-property-added" field="currency"/>',
        '</contract_deltas>',
        '</contract_awareness>',
        '</validation_error>',
      ].join('\n'),
    );
  });

  it('leaves successful calls exactly as the SDK returns them', async () => {
    const plain = await connect(createV2Server());
    const client = await healed();
    const args = { name: 'create_order', arguments: { sku: 'A-1', quantity: 2, currency: 'EUR' } };
    const expected = await plain.callTool(args);
    expect(await client.callTool(args)).toEqual(expected);
    expect(textOf(expected)).toBe('ordered 2 A-1 in EUR');
  });

  it('leaves tool errors, thrown handlers and unknown tools untouched', async () => {
    const plain = await connect(createV2Server());
    const client = await healed();
    for (const call of [
      { name: 'refuse', arguments: { id: 'x' } },
      { name: 'crash', arguments: { id: 'x' } },
      { name: 'no_such_tool', arguments: {} },
    ]) {
      expect(await client.callTool(call)).toEqual(await plain.callTool(call));
    }
  });

  it('formats validation errors of tools without deltas too, without a <contract_awareness> block', async () => {
    const client = await healed();
    const text = textOf(await client.callTool({ name: 'get_stock', arguments: { sku: '' } }));
    expect(text).toContain('<validation_error tool="get_stock">');
    expect(text).toContain('<field name="sku">');
    expect(text).not.toContain('<contract_awareness');
  });

  it('covers tools registered after withSelfHealing and after connect', async () => {
    const server = withSelfHealing(createV2Server(), { deltas });
    const client = await connect(server);
    server.registerTool('late_tool', { inputSchema: { level: z.number().int().min(1) } }, async ({ level }) => ({ content: [{ type: 'text', text: `level ${level}` }] }));
    const text = textOf(await client.callTool({ name: 'late_tool', arguments: {} }));
    expect(text).toContain('<field name="level">Missing. Expected: integer of at least 1.</field>');
    expect(text).toContain('<delta severity="BREAKING" kind="required-property-added" field="level"/>');
  });

  it('works when applied after connect, to handlers the SDK installed in the constructor', async () => {
    const server = new McpServer({ name: 'x', version: '1' }, { capabilities: { tools: {} } });
    const client = await connect(server);
    withSelfHealing(server, { deltas });
    server.registerTool('late_tool', { inputSchema: { level: z.number().int().min(1) } }, async () => ({ content: [] }));
    expect(textOf(await client.callTool({ name: 'late_tool', arguments: { level: 0 } }))).toContain('<delta severity="BREAKING" kind="required-property-added" field="level"/>');
  });

  it('scopes deltas to the failing action of a discriminated union (whole names)', async () => {
    const client = await healed();
    const text = textOf(await client.callTool({ name: 'orders', arguments: { action: 'create' } }));
    expect(text).toContain('<validation_error tool="orders" action="create">');
    expect(text).toContain('<action>create</action>');
    expect(text).toContain('<delta severity="BREAKING" kind="required-property-added" field="email" action="create"/>');
    expect(text).not.toContain('action="createAll"');
    // SDK 1.32 lists a union's input schema as an empty object: the line says what the SDK's message does.
    expect(text).toContain('<field name="email">Missing. Expected: string.</field>');
  });

  it("names every value of a discriminated union's discriminator, and says when it is missing", async () => {
    const client = await healed();
    const call = async (method: Record<string, unknown>) => textOf(await client.callTool({ name: 'pay', arguments: { method } }));
    // The schema at method.type is one branch's constant ("card"): the line lists both branches'.
    expect(await call({ type: 'paypal', email: 'a@b.c' })).toContain(
      '<field name="method.type">Not an allowed value. You sent: "paypal". Expected: one of "card", "bank".</field>',
    );
    expect(await call({ iban: 'DE89' })).toContain('<field name="method.type">Missing. Expected: one of "card", "bank".</field>');
    expect(await call({ type: 'bank', iban: 'DE89' })).toBe('paid by bank');
  });

  it('names the required members of an object that is missing or of the wrong type, and keeps an item\'s constraints apart from the array\'s', async () => {
    const client = await healed();
    const text = textOf(await client.callTool({ name: 'ship', arguments: { parcels: { weight: 2 } } }));
    expect(text).toContain('<field name="address">Missing. Expected: object with required properties "street", "city".</field>');
    expect(text).toContain(
      '<field name="parcels">Wrong type. You sent: {"weight":2}. Expected: array of (object with required properties "weight") with at least 1 item. Wrap the value in an array: [{"weight":2}].</field>',
    );
    expect(textOf(await client.callTool({ name: 'ship', arguments: { address: 'Main St 1, Springfield', parcels: [{ weight: 2 }] } }))).toContain(
      '<field name="address">Wrong type. You sent: "Main St 1, Springfield". Expected: object with required properties "street", "city".</field>',
    );
  });

  it('advises wrapping a value in an array only when it is what the array holds', async () => {
    const client = await healed();
    const address = { street: 'Main St 1', city: 'Springfield' };
    // ["2 boxes"] would fail again: the items are objects.
    expect(textOf(await client.callTool({ name: 'ship', arguments: { address, parcels: '2 boxes' } }))).toContain(
      '<field name="parcels">Wrong type. You sent: "2 boxes". Expected: array of (object with required properties "weight") with at least 1 item.</field>',
    );
    expect(textOf(await client.callTool({ name: 'ship', arguments: { address, parcels: { weight: 2 } } }))).toContain('Wrap the value in an array: [{"weight":2}].</field>');
  });

  it('tells a model that sent null for an optional argument to leave it out, and never to wrap null in an array', async () => {
    const client = await healed();
    const optional = textOf(await client.callTool({ name: 'create_order', arguments: { sku: 'A-1', quantity: 1, currency: 'EUR', note: null } }));
    expect(optional).toContain('<field name="note">Wrong type. You sent: null. Expected: string with at most 500 characters. Leave it out: it is optional.</field>');
    const required = textOf(await client.callTool({ name: 'ship', arguments: { address: { street: 'Main St 1', city: 'Springfield' }, parcels: null } }));
    expect(required).toContain('<field name="parcels">Wrong type. You sent: null. Expected: array of (object with required properties "weight") with at least 1 item.</field>');
  });

  it("shows a delta about an argument's own bounds on its line only, not on the lines of what it holds", async () => {
    const client = await healed();
    const item = textOf(await client.callTool({ name: 'ship', arguments: { address: { street: 'Main St 1', city: 'Springfield' }, parcels: [{ weight: 0 }] } }));
    expect(item).toContain('<field name="parcels[0].weight">Too small.');
    expect(item).toContain('field="parcels[].weight"');
    // parcels accepting fewer items says nothing about parcels[0].weight: counted, not shown.
    expect(item).not.toContain('item-count-range-narrowed');
    expect(item).toContain('<more count="1">');
    const empty = textOf(await client.callTool({ name: 'ship', arguments: { address: { street: 'Main St 1', city: 'Springfield' }, parcels: [] } }));
    expect(empty).toContain('<delta severity="BREAKING" kind="item-count-range-narrowed" field="parcels"/>');
  });

  it('uses resolveAction when given', async () => {
    const resolveAction = vi.fn(() => 'createAll');
    const client = await healed({ resolveAction });
    const text = textOf(await client.callTool({ name: 'orders', arguments: { action: 'create' } }));
    expect(resolveAction).toHaveBeenCalledWith('orders', { action: 'create' });
    expect(text).toContain('<action>createAll</action>');
    // The createAll delta is about "items", not the failing "email": no delta is about the
    // failing field, so the action's most severe one is shown rather than a bare count.
    expect(text).toContain('<delta severity="BREAKING" kind="property-changed" field="items" action="createAll"/>');
    expect(text).not.toContain('<more ');
    expect(text).not.toContain('action="create"');
  });

  it('passes options through: includeAllSeverities, maxDeltasPerError, example: false', async () => {
    const client = await healed({ includeAllSeverities: true, maxDeltasPerError: 1, example: false });
    const text = textOf(await client.callTool({ name: 'create_order', arguments: { sku: 'A-1', quantity: 2 } }));
    expect(text).toContain('<change_count>2</change_count>');
    expect(text).toContain('field="currency"');
    expect(text).toContain('<more count="1">');
    expect(text).not.toContain('<example>');
  });

  it('does not rewrite SDK rejections that are not schema failures (maxToolInputElements)', async () => {
    const plain = await connect(createV2Server({ maxToolInputElements: 2 }));
    const client = await connect(withSelfHealing(createV2Server({ maxToolInputElements: 2 }), { deltas }));
    const call = { name: 'create_order', arguments: { sku: 'A', quantity: 1, currency: 'USD', note: 'n' } };
    const expected = await plain.callTool(call);
    expect(textOf(expected)).toMatch(/more than the maximum of 2 elements/);
    expect(await client.callTool(call)).toEqual(expected);
  });

  it('with explainAll off, installs nothing on a server whose deltas have nothing to inject', async () => {
    const server = createV2Server();
    const quiet = loadDeltaMap(report({ create_order: [delta({ field: 'description', severity: 'COSMETIC' })] }));
    expect(withSelfHealing(server, { deltas: quiet, explainAll: false })).toBe(server);
    expect(withSelfHealing(server, { deltas: loadDeltaMap('/nonexistent/deltas.json', { optional: true }), explainAll: false })).toBe(server);
    expect(Object.hasOwn(server.server, 'connect')).toBe(false);
    const client = await connect(server);
    expect(textOf(await client.callTool({ name: 'create_order', arguments: {} }))).toMatch(/^MCP error -32602: Input validation error/);
  });

  it('by default (explainAll), explains every tool even with no artifact at all', async () => {
    const client = await connect(withSelfHealing(createV2Server(), { deltas: loadDeltaMap('/nonexistent/deltas.json', { optional: true }) }));
    const text = textOf(await client.callTool({ name: 'get_stock', arguments: { sku: '' } }));
    expect(text).toContain('<validation_error tool="get_stock">');
    expect(text).not.toContain('<contract_awareness');
  });

  it('with explainAll off, leaves the SDK\'s error of a tool without deltas as it was, and explains a tool with deltas', async () => {
    const plain = await connect(createV2Server());
    const client = await healed({ explainAll: false });
    const call = { name: 'get_stock', arguments: { sku: '' } };
    expect(await client.callTool(call)).toEqual(await plain.callTool(call));
    expect(textOf(await client.callTool(call))).toMatch(/^MCP error -32602: Input validation error: Invalid arguments for tool get_stock/);
    expect(textOf(await client.callTool({ name: 'create_order', arguments: { sku: 'A-1', quantity: 2 } }))).toContain('<contract_awareness>');
  });

  it('can be applied twice (the second configuration wins, no double wrapping)', async () => {
    const server = withSelfHealing(withSelfHealing(createV2Server(), { deltas }), { deltas, maxDeltasPerError: 0 });
    const client = await connect(server);
    const text = textOf(await client.callTool({ name: 'create_order', arguments: { sku: 'A', quantity: 1 } }));
    expect(text.match(/<contract_awareness/g)).toHaveLength(1);
    expect(text).toContain('<more count="1">');
  });

  it('throws at the call, never degrades silently, when it cannot hook the server or an option is bad', () => {
    for (const notAnSdkServer of [{}, { server: {} }, { server: { connect: 'no' } }, null]) {
      expect(() => withSelfHealing(notAnSdkServer as unknown as McpServer, { deltas })).toThrow(TypeError);
    }
    expect(() => withSelfHealing({} as McpServer, { deltas })).toThrow(/not an McpServer of @modelcontextprotocol\/sdk 1\.x/);
    expect(() => withSelfHealing(createV2Server(), { deltas, maxDeltasPerError: -1 })).toThrow(RangeError);
  });

  it('uses no private SDK method: validateToolInput and createToolError stay the SDK\'s own', () => {
    const server = withSelfHealing(createV2Server(), { deltas });
    expect(Object.hasOwn(server, 'validateToolInput')).toBe(false);
    expect(Object.hasOwn(server, 'createToolError')).toBe(false);
  });
});

describe('callWithSelfHealing against a real server', () => {
  it('fixes a v1-shaped call from the error text alone; the second call succeeds', async () => {
    const client = await healed();
    const correct = vi.fn(correctFromFieldLines);
    const result = await callWithSelfHealing(client, 'create_order', { sku: 'A-1', quantity: 2 }, { correct });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toBe('ordered 2 A-1 in USD');
    expect(correct).toHaveBeenCalledTimes(1);
    const request = correct.mock.calls[0]?.[0];
    expect(request?.attempt).toBe(1);
    expect(request?.args).toEqual({ sku: 'A-1', quantity: 2 });
    expect(request?.errorText).toContain('<contract_awareness>');
  });
});

describe('calls to tools that were renamed or removed', () => {
  async function callText(client: Client, name: string): Promise<{ text: string; isError: boolean }> {
    const result = await client.callTool({ name, arguments: { sku: 'A-1' } });
    return { text: (result.content as Array<{ text: string }>)[0]!.text, isError: result.isError === true };
  }

  it('says that a removed tool is gone; other unknown names keep the SDK message', async () => {
    const client = await connect(withSelfHealing(createV2Server(), { deltas }));
    const unknown = await callText(client, 'never_existed');
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain('Tool never_existed not found');
    expect(unknown.text).not.toContain('UNKNOWN_TOOL');
    const removed = await callText(client, 'delete_order');
    expect(removed.isError).toBe(true);
    expect(removed.text).toBe(
      '<tool_error code="UNKNOWN_TOOL">\n<message>The tool "delete_order" was removed.</message>\n<recovery>Do not call it again; list the tools and use one that exists.</recovery>\n</tool_error>',
    );
  });

  it('callWithSelfHealing recovers a call to a renamed tool through correct()', async () => {
    const server = new McpServer({ name: 'inventory', version: '2.0.0' });
    server.registerTool('check_stock', { inputSchema: { sku: z.string() } }, async ({ sku }) => ({ content: [{ type: 'text', text: `${sku}: 12` }] }));
    const client = await connect(withSelfHealing(server, { deltas }));
    // The agent's LLM, scripted: it reads the new name off the error text.
    const correct = vi.fn((request: CorrectionRequest) => {
      const renamed = /renamed to "([^"]+)"/.exec(request.errorText)?.[1];
      return request.failure === 'unknown-tool' && renamed !== undefined ? correctedCall(renamed, { ...request.args }) : null;
    });
    const result = await callWithSelfHealing(client, 'get_stock', { sku: 'A-1' }, { correct });
    expect(textOf(result)).toBe('A-1: 12');
    expect(correct).toHaveBeenCalledTimes(1);
  });

  it('names the new name of a renamed tool', async () => {
    const server = new McpServer({ name: 'inventory', version: '2.0.0' });
    server.registerTool('check_stock', { inputSchema: { sku: z.string() } }, async ({ sku }) => ({ content: [{ type: 'text', text: `${sku}: 12` }] }));
    const client = await connect(withSelfHealing(server, { deltas }));
    const { text, isError } = await callText(client, 'get_stock');
    expect(isError).toBe(true);
    expect(text).toBe('<tool_error code="UNKNOWN_TOOL">\n<message>The tool "get_stock" was renamed to "check_stock".</message>\n<recovery>Call "check_stock" instead.</recovery>\n</tool_error>');
    // The new name works.
    expect((await callText(client, 'check_stock')).text).toBe('A-1: 12');
  });
});

describe('the oldest SDK supported: @modelcontextprotocol/sdk 1.10.2 (devDependency @modelcontextprotocol/sdk-oldest)', () => {
  // That release throws input-validation failures and unknown tools as JSON-RPC errors, with
  // the zod 3 issues as JSON; the newest returns them as isError results, one line per issue.
  type OldSdk = { McpServer: new (info: object) => McpServer };
  const oldSdkZod = () => createRequire(require.resolve('@modelcontextprotocol/sdk-oldest/server/mcp.js'))('zod') as typeof import('zod/v3');

  async function oldServer(): Promise<{ client: Client; server: McpServer }> {
    const { McpServer: OldMcpServer } = (await import('@modelcontextprotocol/sdk-oldest/server/mcp.js')) as unknown as OldSdk;
    const { z: z3 } = oldSdkZod();
    const server = new OldMcpServer({ name: 'inventory', version: '2.0.0' });
    const shape = { sku: z3.string().min(1), quantity: z3.number().int().min(1), currency: z3.enum(['USD', 'EUR', 'GBP']) };
    (server as unknown as { tool: (...args: unknown[]) => void }).tool('create_order', shape, async (args: { currency: string }) => ({ content: [{ type: 'text', text: `ordered in ${args.currency}` }] }));
    (server as unknown as { tool: (...args: unknown[]) => void }).tool('check_stock', { sku: z3.string() }, async () => ({ content: [{ type: 'text', text: '12' }] }));
    return { client: await connect(withSelfHealing(server, { deltas })), server };
  }

  it('answers a v1-shaped call with the enriched error, as an isError result', async () => {
    const { client } = await oldServer();
    const result = await client.callTool({ name: 'create_order', arguments: { sku: 'A-1', quantity: 0 } });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('<field name="quantity">Too small. You sent: 0. Expected: integer of at least 1.</field>');
    expect(text).toContain('<field name="currency">Missing. Expected: string, one of "USD", "EUR", "GBP".</field>');
    expect(text).toContain('<delta severity="BREAKING" kind="required-property-added" field="currency"/>');
  });

  it('tells a renamed tool\'s new name, and leaves valid calls as they were', async () => {
    const { client } = await oldServer();
    expect(textOf(await client.callTool({ name: 'get_stock', arguments: { sku: 'A-1' } }))).toContain('<message>The tool "get_stock" was renamed to "check_stock".</message>');
    const ok = await client.callTool({ name: 'create_order', arguments: { sku: 'A-1', quantity: 1, currency: 'EUR' } });
    expect(ok).toEqual({ content: [{ type: 'text', text: 'ordered in EUR' }] });
    // An unknown name the artifact does not know stays the SDK's own protocol error.
    await expect(client.callTool({ name: 'never_existed', arguments: {} })).rejects.toThrow(/Tool never_existed not found/);
  });

  it('lets callWithSelfHealing recover the call from the field lines', async () => {
    const { client } = await oldServer();
    const result = await callWithSelfHealing(client, 'create_order', { sku: 'A-1', quantity: 2 }, { correct: correctFromFieldLines });
    expect(textOf(result)).toBe('ordered in USD');
  });
});
