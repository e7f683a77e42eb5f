/**
 * Issue 22 through real McpServers (zod 3 and zod 4 with the newest SDK, and the oldest SDK
 * supported, 1.10.2) driven by an SDK Client: no old-shaped call does the wrong thing. The
 * artifact is the one the diff writes for two real releases of the server
 * (test/fixtures/servers/renamed-tools.mjs); every handler records what it was given, so each
 * call is judged by what the tool received:
 * - explain (the default): a call sending a renamed or removed argument is refused, naming it;
 *   the handler never runs, so nothing is silently ignored;
 * - route: the call is served under the new names on the first try (a renamed tool too), the
 *   handler gets what the agent meant, and the result says so (text and _meta);
 * - past the deprecation window, route explains.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { NOTICE_META_KEY, loadDeltaMap, withSelfHealing, type WithSelfHealingOptions } from '../../src/runtime/index.js';
import { connectInMemory, createServer, renamedToolsReport, toolkit, type Kit, type RenamedToolsServer as Server } from '../helpers/renamed-tools.js';

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function connect(server: Server): Promise<Client> {
  const client = await connectInMemory(server);
  open.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

/** The artifact `diff v1 v2 --artifact --released-at 2025-06-01` writes for the fixture's two releases. */
const deltas = loadDeltaMap(await renamedToolsReport('2025-06-01'));
const WITHIN = () => Date.parse('2025-09-01T12:00:00Z');
const AFTER = () => Date.parse('2026-06-02T12:00:00Z');

/** A healed release-2 server: its client, and what its handlers were given. */
async function healed(kit: Kit, options: Partial<WithSelfHealingOptions>): Promise<{ client: Client; seen: Array<[string, unknown]> }> {
  const seen: Array<[string, unknown]> = [];
  const server = createServer(kit, 2, seen) as Server;
  withSelfHealing(server, { deltas, ...options });
  return { client: await connect(server), seen };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('\n');
const fieldLines = (text: string) => [...text.matchAll(/<field name="[^"]*">[^<]*<\/field>/g)].map((m) => m[0]);

/** Old-shaped calls, shaped for release 1. */
const OLD = {
  evaluate: { name: 'browser_evaluate', arguments: { function: '() => 1', ref: 'e1' } },
  fill: { name: 'browser_fill_form', arguments: { fields: [{ name: 'email', ref: 'e2', value: 'a@b.c' }] } },
  search: { name: 'search', arguments: { query: 'shoes', days: 7 } },
  stock: { name: 'get_stock', arguments: { sku: 'A-1' } },
};

const KITS: Array<[string, () => Promise<Kit>]> = [
  ['zod 4, newest SDK', () => toolkit({ sdk: 'newest', zod: '4' })],
  ['zod 3, newest SDK', () => toolkit({ sdk: 'newest', zod: '3' })],
  ['zod 3, SDK 1.10.2 (the oldest supported)', () => toolkit({ sdk: 'oldest' })],
];

describe('the diff finds what release 2 did', () => {
  it('two renamed arguments (one inside array items), a removed one, a renamed tool, dated', () => {
    const found = [...deltas].flatMap(([tool, entry]) => entry.deltas.filter((d) => /renamed|removed/.test(d.kind)).map((d) => `${tool} ${d.kind} ${d.field}`));
    expect(found.sort()).toEqual([
      'browser_evaluate property-renamed inputSchema.properties.target',
      'browser_fill_form property-renamed inputSchema.properties.fields.items.properties.target',
      'check_stock tool-renamed name',
      'report property-renamed inputSchema.properties.period',
      'search property-removed-ignored inputSchema.properties.days',
    ]);
    expect(deltas.release).toEqual({ version: '2.0.0', date: '2025-06-01' });
  });
});

for (const [label, kitOf] of KITS) {
  describe(`withSelfHealing, ${label}`, () => {
    it('explain (the default): refuses each old-shaped argument with what became of it; no handler runs', async () => {
      const { client, seen } = await healed(await kitOf(), {});
      const evaluate = await client.callTool(OLD.evaluate);
      expect(evaluate.isError).toBe(true);
      expect(fieldLines(textOf(evaluate))).toEqual(['<field name="ref">Renamed to "target". You sent: "e1". Expected: string.</field>']);
      const fill = await client.callTool(OLD.fill);
      expect(fieldLines(textOf(fill))).toEqual(['<field name="fields[0].ref">Renamed to "target". You sent: "e2". Expected: string.</field>']);
      const search = await client.callTool(OLD.search);
      expect(fieldLines(textOf(search))).toEqual(['<field name="days">No longer a field of this tool (removed in 2.0.0). You sent: 7. Remove it.</field>']);
      expect(textOf(search)).toContain('<delta severity="RISKY" kind="property-removed-ignored" field="days">');
      expect(seen).toEqual([]);
      // A call to the renamed tool is told its new name, as before.
      expect(textOf(await client.callTool(OLD.stock))).toContain('The tool "get_stock" was renamed to "check_stock".');
      // New-shaped calls are the server's, untouched.
      expect(await client.callTool({ name: 'search', arguments: { query: 'shoes' } })).toEqual({ content: [{ type: 'text', text: '{"query":"shoes"}' }] });
    });

    it('route: serves every old-shaped call on the first try, the handler gets what was meant, and the result says so', async () => {
      const { client, seen } = await healed(await kitOf(), { renames: 'route', now: WITHIN });
      const results = [];
      for (const call of [OLD.evaluate, OLD.fill, OLD.search, OLD.stock]) results.push(await client.callTool(call));
      expect(results.map((result) => result.isError ?? false)).toEqual([false, false, false, false]);
      expect(seen).toEqual([
        ['browser_evaluate', { function: '() => 1', target: 'e1' }],
        ['browser_fill_form', { fields: [{ name: 'email', target: 'e2', value: 'a@b.c' }] }],
        ['search', { query: 'shoes' }],
        ['check_stock', { sku: 'A-1' }],
      ]);
      const [evaluate, , search, stock] = results as Array<Awaited<ReturnType<Client['callTool']>>>;
      // The tool's own answer first, then the notice.
      expect((evaluate!.content as Array<{ text: string }>)[0]!.text).toBe('{"function":"() => 1","target":"e1"}');
      expect(textOf(evaluate!)).toContain('<message>The argument "ref" was renamed to "target" in 2.0.0: it was passed as "target".</message>');
      expect(textOf(evaluate!)).toContain('<recovery>Use the new names from now on (the old ones are served until 2026-06-01).</recovery>');
      expect(evaluate!._meta?.[NOTICE_META_KEY]).toEqual({ arguments: [{ from: 'ref', to: 'target' }], release: { version: '2.0.0', date: '2025-06-01' }, servedUntil: '2026-06-01' });
      expect(textOf(search!)).toContain('<message>"days" was ignored: the tool no longer takes it in 2.0.0 (it was: Only results of the last N days).</message>');
      expect(stock!._meta?.[NOTICE_META_KEY]).toMatchObject({ tool: { from: 'get_stock', to: 'check_stock' } });
      // A call already right is untouched: no notice.
      expect(await client.callTool({ name: 'browser_evaluate', arguments: { function: 'f', target: 'e3' } })).toEqual({ content: [{ type: 'text', text: '{"function":"f","target":"e3"}' }] });
    });

    it('route, after the deprecation window: explains instead, and no handler runs', async () => {
      const { client, seen } = await healed(await kitOf(), { renames: 'route', now: AFTER });
      expect(fieldLines(textOf(await client.callTool(OLD.evaluate)))).toEqual(['<field name="ref">Renamed to "target". You sent: "e1". Expected: string.</field>']);
      expect(textOf(await client.callTool(OLD.stock))).toContain('The tool "get_stock" was renamed to "check_stock".');
      expect(seen).toEqual([]);
    });
  });
}

describe('a structured result keeps its contract when a routed call adds the notice', () => {
  it('structuredContent is untouched and the client validates it against the output schema', async () => {
    const { client, seen } = await healed(await toolkit({ sdk: 'newest', zod: '4' }), { renames: 'route', now: WITHIN });
    await client.listTools(); // the client learns the output schema, and validates every result of the tool against it
    const result = await client.callTool({ name: 'report', arguments: { range: 'week' } });
    expect(seen).toEqual([['report', { period: 'week' }]]);
    expect(result.structuredContent).toEqual({ total: 3, period: 'week' });
    const content = result.content as Array<{ type: string; text: string }>;
    expect(JSON.parse(content[0]!.text)).toEqual({ total: 3, period: 'week' });
    expect(content[1]!.text).toContain('<message>The argument "range" was renamed to "period" in 2.0.0: it was passed as "period".</message>');
  });
});

describe('the SDK\'s zod version does not change what the model reads', () => {
  it('zod 3 and zod 4 servers give the same field lines, each fact said once', async () => {
    const calls = [
      { name: 'browser_fill_form', arguments: { fields: [{ name: 'email', ref: 'e2', value: 7 }] } },
      { name: 'report', arguments: { range: 'month' } },
      // Failures of the SDK's own validation (no rename involved): zod 3 and zod 4 word them differently.
      { name: 'check_stock', arguments: { sku: '' } },
      { name: 'report', arguments: { period: 'month' } },
      { name: 'search', arguments: {} },
    ];
    const lines = async (kit: Kit) => {
      const { client } = await healed(kit, {});
      const out = [];
      for (const call of calls) out.push(fieldLines(textOf(await client.callTool(call))));
      return out;
    };
    const zod4 = await lines(await toolkit({ sdk: 'newest', zod: '4' }));
    expect(zod4).toEqual([
      ['<field name="fields[0].ref">Renamed to "target". You sent: "e2". Expected: string.</field>', '<field name="fields[0].value">Wrong type. You sent: 7. Expected: string.</field>'],
      ['<field name="range">Renamed to "period". You sent: "month". Expected: string, one of "day", "week".</field>'],
      ['<field name="sku">Too short. You sent: "". Expected: string with at least 1 character.</field>'],
      ['<field name="period">Not an allowed value. You sent: "month". Expected: string, one of "day", "week".</field>'],
      ['<field name="query">Missing. Expected: string.</field>'],
    ]);
    expect(await lines(await toolkit({ sdk: 'newest', zod: '3' }))).toEqual(zod4);
    expect(await lines(await toolkit({ sdk: 'oldest' }))).toEqual(zod4);
  });
});
