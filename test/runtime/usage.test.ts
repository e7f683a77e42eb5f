/**
 * The usage recorder: what it counts (and never keeps: free text), that its memory stays within
 * its caps whatever the clients send, that days roll over on the UTC clock, that it appends
 * lines in the background and at exit (natural, SIGTERM, the stdio transport closing), and that
 * several processes can append to one file at once without losing or mixing a line.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { USAGE_CAPS, UsageSummaryBuilder, readUsageRecordLine, type UsageRecord, type UsageToolRecord } from '../../src/protocol/index.js';
import { loadDeltaMap, withSelfHealing } from '../../src/runtime/index.js';
import { UsageRecorder, allowedValues } from '../../src/runtime/usage.js';
import { ROOT } from '../helpers/processes.js';
import { connectInMemory, createServer, renamedToolsReport, toolkit, type RenamedToolsServer } from '../helpers/renamed-tools.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcg-usage-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const records = (file: string): UsageRecord[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(readUsageRecordLine);
const toolLines = (file: string, tool: string) => records(file).filter((r): r is UsageToolRecord => r.type === 'tool' && r.tool === tool);

const SEARCH = {
  name: 'search',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      sort: { type: 'string', enum: ['relevance', 'date'] },
      filters: { type: 'array', items: { type: 'object', properties: { kind: { const: 'tag' }, value: { type: 'string' } } } },
    },
  },
};

describe('what a call counts', () => {
  it('the tool, the fields present at any depth (once per call), and only the allowed values sent: anything else is (other)', () => {
    const file = join(dir, 'usage.jsonl');
    const recorder = new UsageRecorder({ file, metrics: false, now: () => Date.parse('2026-03-01T10:00:00Z') });
    recorder.setServer({ name: 'shop', version: '1.0.0' });
    recorder.listed([SEARCH]);
    recorder.call('search', { query: 'secret text the user typed', sort: 'date', filters: [{ kind: 'tag', value: 'a' }, { kind: 'tag', value: 'b' }] });
    recorder.call('search', { query: 'x', sort: 'my free text' });
    recorder.outcome('search', 'invalid-arguments');
    recorder.close();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('secret text');
    expect(text).not.toContain('my free text');
    const [day, ...rest] = records(file);
    expect(day).toEqual({ type: 'day', day: '2026-03-01', server: { name: 'shop', version: '1.0.0' }, listed: ['search'], overflowTools: 0, overflowCalls: 0 });
    expect(rest).toHaveLength(1);
    expect(rest[0]).toMatchObject({
      tool: 'search',
      calls: 2,
      fields: {
        'inputSchema.properties.query': 2,
        'inputSchema.properties.sort': 2,
        'inputSchema.properties.filters': 1,
        // Two items sent it: one call.
        'inputSchema.properties.filters.items.properties.kind': 1,
        'inputSchema.properties.filters.items.properties.value': 1,
      },
      values: { 'inputSchema.properties.sort': { '"date"': 1, '(other)': 1 }, 'inputSchema.properties.filters.items.properties.kind': { '"tag"': 1 } },
      refused: { 'invalid-arguments': 1 },
    });
  });

  it('allowed values come from enum and const through branches, items and local $refs', () => {
    const allowed = allowedValues({
      $defs: { Mode: { enum: ['fast', 'slow'] } },
      oneOf: [
        { properties: { action: { const: 'create' }, mode: { $ref: '#/$defs/Mode' } } },
        { properties: { action: { const: 'archive' } } },
      ],
      properties: { tags: { type: 'array', items: { enum: [1, 2, null] } } },
    });
    expect([...(allowed.get('action') ?? [])]).toEqual(['"create"', '"archive"']);
    expect([...(allowed.get('mode') ?? [])]).toEqual(['"fast"', '"slow"']);
    expect([...(allowed.get('tags\u0000[]') ?? [])]).toEqual(['1', '2', 'null']);
  });

  it('a new UTC day starts new lines; the day before is written under its own day', () => {
    const file = join(dir, 'usage.jsonl');
    let now = Date.parse('2026-03-01T23:59:59Z');
    const recorder = new UsageRecorder({ file, metrics: false, now: () => now });
    recorder.call('search', {});
    now = Date.parse('2026-03-02T00:00:01Z');
    recorder.call('search', {});
    recorder.call('search', {});
    recorder.close();
    expect(toolLines(file, 'search').map((r) => [r.day, r.calls])).toEqual([
      ['2026-03-01', 1],
      ['2026-03-02', 2],
    ]);
    expect(records(file).filter((r) => r.type === 'day').map((r) => r.day)).toEqual(['2026-03-01', '2026-03-02']);
  });

  it('stays within its caps over 100,000 calls of hostile names, counting the rest as overflow', async () => {
    const file = join(dir, 'usage.jsonl');
    const recorder = new UsageRecorder({ file, metrics: false, now: () => Date.parse('2026-03-01T10:00:00Z') });
    recorder.listed([SEARCH]);
    for (let i = 0; i < 100_000; i++) {
      const args: Record<string, unknown> = { query: 'q', sort: `value ${i}`, [`field${i}`]: { [`inner${i}`]: [i] }, __proto__: 1, constructor: 2 };
      recorder.call(i % 2 === 0 ? 'search' : `tool-${i}`, args);
      if (i % 10_000 === 0) await recorder.flush();
    }
    const sizes = recorder.sizes();
    expect(sizes.tools).toBeLessThanOrEqual(USAGE_CAPS.tools);
    expect(sizes.fields).toBeLessThanOrEqual(USAGE_CAPS.tools * USAGE_CAPS.fields);
    expect(sizes.values).toBeLessThanOrEqual(USAGE_CAPS.tools * USAGE_CAPS.values);
    recorder.close();
    const summary = new UsageSummaryBuilder();
    for (const record of records(file)) summary.add(record);
    const result = summary.summary();
    // Every call is counted, those of tools past the cap as overflow.
    expect(result.calls).toBe(100_000);
    expect(result.overflow.calls).toBeGreaterThan(0);
    expect(result.tools.search?.calls).toBe(50_000);
    expect(result.tools.search?.overflow.fields).toBeGreaterThan(0);
    expect(Object.keys(result.tools.search?.fields ?? {}).length).toBeLessThanOrEqual(USAGE_CAPS.fields);
    // No line is longer than the reader takes: every one was read above.
  });
});

describe('renames (issue 22)', () => {
  it('a call routed from an old tool name is counted under the name the client called, with where it went; an old-shaped one refused, as refused', async () => {
    const kit = await toolkit({ sdk: 'newest', zod: '4' });
    const deltas = loadDeltaMap(await renamedToolsReport('2025-06-01'));
    const file = join(dir, 'renames.jsonl');
    const now = () => Date.parse('2025-09-01T12:00:00Z');
    const recorder = new UsageRecorder({ file, metrics: false, now });
    const routing = createServer(kit, 2) as RenamedToolsServer;
    const routed = await connectInMemory(withSelfHealing(routing, { deltas, renames: 'route', now, usage: recorder }));
    await routed.callTool({ name: 'get_stock', arguments: { sku: 'A-1' } });
    await routed.callTool({ name: 'browser_evaluate', arguments: { function: '() => 1', ref: 'e1' } });
    await routed.close();
    const explaining = createServer(kit, 2) as RenamedToolsServer;
    const explained = await connectInMemory(withSelfHealing(explaining, { deltas, usage: recorder }));
    await explained.callTool({ name: 'browser_evaluate', arguments: { function: '() => 1', ref: 'e1' } });
    await explained.close();
    await recorder.close();
    expect(toolLines(file, 'get_stock')).toEqual([expect.objectContaining({ calls: 1, routed: { check_stock: 1 }, refused: {} })]);
    expect(toolLines(file, 'check_stock')).toEqual([]);
    // The old argument name is what was sent: usage shows it is still in use. The first server's
    // transport closing wrote its counts: one line for the call it served, one for the refusal.
    // Each server writes when its transport has closed, so the two lines come in either order.
    const sent = { 'inputSchema.properties.function': 1, 'inputSchema.properties.ref': 1 };
    const lines = toolLines(file, 'browser_evaluate').sort((a, b) => Object.keys(a.refused).length - Object.keys(b.refused).length);
    expect(lines).toEqual([
      expect.objectContaining({ calls: 1, fields: sent, refused: {}, routed: {} }),
      expect.objectContaining({ calls: 1, fields: sent, refused: { 'invalid-arguments': 1 }, routed: {} }),
    ]);
  });
});

describe('OpenTelemetry', () => {
  /** A meter that keeps what it was given. */
  function keepingMeter() {
    const points: Array<{ name: string; value: number; attributes: Record<string, unknown> }> = [];
    const instruments: Array<{ name: string; options: unknown }> = [];
    const instrument = (name: string, options: unknown) => {
      instruments.push({ name, options });
      const keep = (value: number, attributes: Record<string, unknown> = {}) => void points.push({ name, value, attributes });
      return { record: keep, add: keep };
    };
    return { meter: { createHistogram: instrument, createCounter: instrument }, points, instruments };
  }

  it('records the semantic conventions\' mcp.server.operation.duration, and ours for fields, values and renames', () => {
    const { meter, points, instruments } = keepingMeter();
    const recorder = new UsageRecorder({ file: join(dir, 'otel.jsonl'), metrics: meter });
    recorder.setTransport('pipe');
    recorder.listed([SEARCH]);
    recorder.call('search', { query: 'free text', sort: 'date' });
    recorder.outcome('search', 'invalid-arguments', 0.25, '-32602');
    recorder.routed('find', 'search');
    recorder.close();
    expect(instruments.find((i) => i.name === 'mcp.server.operation.duration')?.options).toMatchObject({ unit: 's', advice: { explicitBucketBoundaries: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300] } });
    expect(points).toEqual(
      expect.arrayContaining([
        { name: 'mcp_contract_guard.tool.argument.calls', value: 1, attributes: { 'gen_ai.tool.name': 'search', 'mcp_contract_guard.argument.field': 'inputSchema.properties.query' } },
        { name: 'mcp_contract_guard.tool.argument.value.calls', value: 1, attributes: { 'gen_ai.tool.name': 'search', 'mcp_contract_guard.argument.field': 'inputSchema.properties.sort', 'mcp_contract_guard.argument.value': '"date"' } },
        {
          name: 'mcp.server.operation.duration',
          value: 0.25,
          attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'network.transport': 'pipe', 'error.type': '-32602', 'mcp_contract_guard.refusal': 'invalid-arguments' },
        },
        { name: 'mcp_contract_guard.tool.routed.calls', value: 1, attributes: { 'gen_ai.tool.name': 'find', 'mcp_contract_guard.tool.routed_to': 'search' } },
      ]),
    );
    expect(JSON.stringify(points)).not.toContain('free text');
  });

  it('by default, through the meter provider the application registered with @opentelemetry/api, even after the server was made', async () => {
    const { metrics } = await import('@opentelemetry/api');
    const { meter, points } = keepingMeter();
    const recorder = new UsageRecorder({ file: join(dir, 'global.jsonl') });
    try {
      // No provider yet: the API's no-op. The application registers its SDK later.
      recorder.call('search', { query: 'q' });
      metrics.setGlobalMeterProvider({ getMeter: () => meter } as never);
      // The recorder picks it up at a flush, once it has imported the API (in the background).
      for (let i = 0; i < 200 && points.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
        await recorder.flush();
        recorder.call('search', { query: 'q', sort: 'date' });
      }
      expect(points.map((p) => p.attributes['mcp_contract_guard.argument.field'])).toContain('inputSchema.properties.sort');
    } finally {
      await recorder.close();
      metrics.disable();
    }
  });

  it('through a withSelfHealing server: each call\'s duration with its tool, and network.transport only where it is known (not in memory)', async () => {
    const { meter, points } = keepingMeter();
    const recorder = new UsageRecorder({ file: join(dir, 'server.jsonl'), metrics: meter });
    const kit = await toolkit({ sdk: 'newest', zod: '4' });
    const client = await connectInMemory(withSelfHealing(createServer(kit, 2) as RenamedToolsServer, { deltas: new Map(), usage: recorder }));
    await client.callTool({ name: 'search', arguments: { query: 'q' } });
    await client.close();
    await recorder.close();
    expect(points.filter((p) => p.name === 'mcp.server.operation.duration')).toEqual([
      { name: 'mcp.server.operation.duration', value: expect.any(Number), attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' } },
    ]);
  });
});

/**
 * A node process that records `calls` calls of `tool` to `file` and ends as `ending` says. It
 * flushes every 10 ms while it runs, or (`exit`, `sigterm`) never on its own: then only the exit
 * path can have written its counts.
 */
function recordingProcess(file: string, tool: string, calls: number, ending: 'exit' | 'sigterm' | 'natural'): Promise<number | null> {
  const interval = ending === 'natural' ? 10 : 3_600_000;
  const script = join(dir, `${tool}.mjs`);
  writeFileSync(
    script,
    `
    import { UsageRecorder } from ${JSON.stringify(pathToFileURL(resolve(ROOT, 'lib/runtime/usage.js')).href)};
    const recorder = new UsageRecorder({ file: ${JSON.stringify(file)}, flushIntervalMs: ${interval}, metrics: false });
    recorder.setServer({ name: 'shop' });
    let i = 0;
    const tick = () => {
      for (let n = 0; n < 50 && i < ${calls}; n++, i++) recorder.call(${JSON.stringify(tool)}, { a: i, b: { c: [i] } });
      if (i < ${calls}) return void setImmediate(tick);
      if (${JSON.stringify(ending)} === 'sigterm') { process.stdout.write('done\\n'); setInterval(() => {}, 1000); }
      else if (${JSON.stringify(ending)} === 'exit') process.exit(0);
    };
    tick();
    `,
  );
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', () => child.kill('SIGTERM'));
    child.once('error', reject);
    child.once('exit', (code) => done(code));
  });
}

describe('appending', () => {
  it('two processes writing to one file at once: every line whole, every call counted once', async () => {
    const file = join(dir, 'shared.jsonl');
    await Promise.all([recordingProcess(file, 'alpha', 20_000, 'natural'), recordingProcess(file, 'beta', 20_000, 'natural')]);
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
    // Both flushed many times (every 10 ms), so their appends were interleaved in time.
    expect(lines.length).toBeGreaterThan(4);
    const all = lines.map(readUsageRecordLine);
    const calls = (tool: string) => all.filter((r): r is UsageToolRecord => r.type === 'tool' && r.tool === tool).reduce((sum, r) => sum + r.calls, 0);
    expect(calls('alpha')).toBe(20_000);
    expect(calls('beta')).toBe(20_000);
  });

  it('at process.exit and at SIGTERM, what was counted is written', async () => {
    const exited = join(dir, 'exit.jsonl');
    const terminated = join(dir, 'term.jsonl');
    const [exitCode, termCode] = await Promise.all([recordingProcess(exited, 'gamma', 1_000, 'exit'), recordingProcess(terminated, 'delta', 1_000, 'sigterm')]);
    expect(exitCode).toBe(0);
    // Default SIGTERM behaviour kept: the process still ends by the signal.
    expect(termCode).toBeNull();
    expect(toolLines(exited, 'gamma').reduce((sum, r) => sum + r.calls, 0)).toBe(1_000);
    expect(toolLines(terminated, 'delta').reduce((sum, r) => sum + r.calls, 0)).toBe(1_000);
  });

  it('close while a background write is under way: that line is not written again, and the file is closed once it is done', async () => {
    const file = join(dir, 'closing.jsonl');
    const recorder = new UsageRecorder({ file, metrics: false });
    // The day's first line is written: the next flush has one line, the tool's.
    await recorder.flush();
    recorder.call('search', { query: 'q' });
    void recorder.flush();
    // One turn of the microtask queue: that line's write is issued; its callback needs the event loop.
    await Promise.resolve();
    recorder.call('search', {});
    const closed = recorder.close();
    await closed;
    expect(toolLines(file, 'search').reduce((sum, r) => sum + r.calls, 0)).toBe(2);
    // Closed: nothing counted afterwards is appended.
    recorder.call('search', {});
    await recorder.flush();
    expect(toolLines(file, 'search').reduce((sum, r) => sum + r.calls, 0)).toBe(2);
  });

  it('a withSelfHealing server records through its transport: a client listing and calling, then closing stdin', async () => {
    const file = join(dir, 'server.jsonl');
    // Inside the checkout, so that the script resolves the SDK and zod from its node_modules.
    mkdirSync(join(ROOT, '.tmp'), { recursive: true });
    const script = join(ROOT, '.tmp', `usage-server-${process.pid}.mjs`);
    writeFileSync(
      script,
      `
      import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
      import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
      import { z } from 'zod';
      import { withSelfHealing } from ${JSON.stringify(pathToFileURL(resolve(ROOT, 'lib/runtime/index.js')).href)};
      const server = new McpServer({ name: 'shop', version: '3.1.0' });
      server.registerTool('search', { inputSchema: { query: z.string(), sort: z.enum(['relevance', 'date']).optional() } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
      withSelfHealing(server, { deltas: new Map(), usage: { file: ${JSON.stringify(file)} } });
      await server.connect(new StdioServerTransport());
      `,
    );
    try {
      const client = new Client({ name: 'usage-test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [script], cwd: ROOT, stderr: 'inherit' }));
      await client.listTools();
      await client.callTool({ name: 'search', arguments: { query: 'a', sort: 'date' } });
      await client.callTool({ name: 'search', arguments: { query: 7 } });
      await client.callTool({ name: 'nowhere', arguments: {} }).catch(() => undefined);
      await client.close();
      // The server ends when its stdin closes; its lines are written by then.
      await waitFor(() => toolLines(file, 'nowhere').length > 0);
      const day = records(file).find((r) => r.type === 'day');
      expect(day).toMatchObject({ server: { name: 'shop', version: '3.1.0' }, listed: ['search'] });
      expect(toolLines(file, 'search')).toEqual([
        expect.objectContaining({ calls: 2, fields: { 'inputSchema.properties.query': 2, 'inputSchema.properties.sort': 1 }, values: { 'inputSchema.properties.sort': { '"date"': 1 } }, refused: { 'invalid-arguments': 1 } }),
      ]);
      expect(toolLines(file, 'nowhere')[0]?.refused).toEqual({ 'unknown-tool': 1 });
    } finally {
      rmSync(script, { force: true });
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if (condition()) return;
    } catch {
      // Not written yet.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the recording never showed what was expected');
}
