/**
 * `mcp-contract-guard proxy` through real processes: an SDK client launches the built CLI's
 * proxy, which launches a server written without any SDK (raw-inventory.mjs, which records
 * every message it receives) or a published one from npm.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT, fixture, freePort, groupAlive, groupOf, listeningFixture, processesLeft } from '../helpers/processes.js';
import { soon } from '../helpers/timing.js';
import { delta } from '../runtime/helpers.js';
import {
  RawProxy,
  alive,
  callsReceived,
  connect,
  connectHttp,
  expectCloseLeavesNothing,
  httpServer,
  listeningProxy,
  jsonLines,
  listAllTools,
  proxyArgs,
  safeParse,
  scratch,
  textOf,
  writeArtifact,
  type Connected,
} from './helpers.js';
import { CLI_COMMAND } from '../../src/version.js';

const RAW_SERVER = [process.execPath, fixture('raw-inventory.mjs')];

/** What `diff v1 v2 --artifact` says about the raw server's v2. */
const RAW_DELTAS = {
  create_order: [
    delta({
      field: 'inputSchema.properties.currency',
      kind: 'required-property-added',
      message: 'Property "currency" was added and is required.',
      current: { type: 'string', enum: ['USD', 'EUR', 'GBP'] },
      hint: 'Send "currency" on every call.',
    }),
  ],
  orders: [
    delta({ field: 'actions.create.inputSchema.properties.email', action: 'create', kind: 'required-property-added', current: { type: 'string', format: 'email' } }),
    delta({ field: 'actions.createAll.inputSchema.properties.items', action: 'createAll' }),
  ],
  check_stock: [delta({ field: 'name', kind: 'tool-renamed', message: 'Tool "get_stock" was renamed to "check_stock".', renamedFrom: 'get_stock', renamedTo: 'check_stock' })],
  delete_order: [delta({ field: '', kind: 'tool-removed', message: 'Tool "delete_order" was removed.' })],
};

const VALID_CALLS = [
  { name: 'create_order', arguments: { sku: 'A-1', quantity: 2, currency: 'EUR' } },
  { name: 'orders', arguments: { action: 'create', email: 'ana@example.com' } },
  { name: 'check_stock', arguments: { sku: 'A-1' } },
];

// The same tests with the proxy on stdio around the server's stdio, serving streamable HTTP
// (--listen) around it, and on stdio in front of the same server serving streamable HTTP (--url).
describe.each(['stdio', 'listen', 'url'] as const)('proxy (%s) around a server written without an SDK', (mode) => {
  const files = scratch();
  const artifact = writeArtifact(files.file('contract-deltas.json'), RAW_DELTAS);
  const record = files.file('record.jsonl');
  const log = files.file('calls.jsonl');
  let proxied: Connected;
  let direct: Connected;
  const logMessages: unknown[] = [];

  let upstream: RawProxy | undefined;

  beforeAll(async () => {
    const flags = ['--artifact', artifact, '--log', log];
    if (mode === 'stdio') proxied = await connect(process.execPath, proxyArgs(flags, RAW_SERVER), { RECORD_FILE: record });
    if (mode === 'listen') proxied = await connectHttp(flags, RAW_SERVER, { RECORD_FILE: record });
    if (mode === 'url') {
      const served = await httpServer(fixture('raw-inventory.mjs'), { RECORD_FILE: record });
      upstream = served.server;
      proxied = await connect(process.execPath, proxyArgs([...flags, '--url', served.url.href], []));
    }
    proxied.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logMessages.push(notification.params));
    direct = await connect(RAW_SERVER[0] as string, RAW_SERVER.slice(1));
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
    upstream?.child.kill();
    files.remove();
  });

  it('tools/list through the proxy equals the direct answer, page by page', async () => {
    const [through, straight] = await Promise.all([listAllTools(proxied.client), listAllTools(direct.client)]);
    expect(through).toEqual(straight);
    expect(through).toHaveLength(6);
    const first = await proxied.client.listTools();
    expect(first).toEqual(await direct.client.listTools());
    expect(first.nextCursor).toBe('2');
  });

  it('valid calls return exactly what the server returns', async () => {
    for (const call of VALID_CALLS) {
      const result = await proxied.client.callTool(call);
      expect(result).toEqual(await direct.client.callTool(call));
      expect(result.isError).toBeUndefined();
    }
    expect(callsReceived(record)).toEqual(expect.arrayContaining(VALID_CALLS));
  });

  it('a call shaped for the old contract gets the enriched <validation_error> and never reaches the server', async () => {
    const result = await proxied.client.callTool({ name: 'create_order', arguments: { sku: 'OLD-1', quantity: 2 } });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text.startsWith('<validation_error tool="create_order">\n')).toBe(true);
    expect(text).toContain('<field name="currency">Missing. Expected: string, one of "USD", "EUR", "GBP".</field>');
    expect(text).toContain('<example>{"sku":"example","quantity":1,"currency":"USD"}</example>');
    expect(text).toContain('<contract_awareness>');
    expect(text).toContain('<delta severity="BREAKING" kind="required-property-added" field="currency"/>');
    expect(text.endsWith('</contract_awareness>\n</validation_error>')).toBe(true);
    expect(callsReceived(record).some((call) => (call.arguments as { sku?: string })?.sku === 'OLD-1')).toBe(false);
  });

  it("scopes the <contract_awareness> block to the call's action", async () => {
    const text = textOf(await proxied.client.callTool({ name: 'orders', arguments: { action: 'create' } }));
    expect(text).toContain('<validation_error tool="orders" action="create">');
    expect(text).toContain('<field name="email">Missing.');
    expect(text).toContain('<action>create</action>');
    expect(text).toContain('field="email" action="create"');
    expect(text).not.toContain('action="createAll"');
  });

  it("answers a renamed tool's old name with the new name, and a removed tool with its removal, without the server", async () => {
    const renamed = await proxied.client.callTool({ name: 'get_stock', arguments: { sku: 'A-1' } });
    expect(renamed.isError).toBe(true);
    expect(textOf(renamed)).toBe('<tool_error code="UNKNOWN_TOOL">\n<message>The tool "get_stock" was renamed to "check_stock".</message>\n<recovery>Call "check_stock" instead.</recovery>\n</tool_error>');
    const removed = textOf(await proxied.client.callTool({ name: 'delete_order', arguments: {} }));
    expect(removed).toContain('<message>The tool "delete_order" was removed.</message>');
    const names = callsReceived(record).map((call) => call.name);
    expect(names).not.toContain('get_stock');
    expect(names).not.toContain('delete_order');
  });

  it("explains the server's own validation error (TypeScript SDK shape) when its check is stricter than its schema", async () => {
    const result = await proxied.client.callTool({ name: 'strict_echo', arguments: { text: 'far too long' } });
    const text = textOf(result);
    expect(result.isError).toBe(true);
    expect(text).toContain('<validation_error tool="strict_echo">');
    // The bound is the server's, not in its schema: the line states it from the server's message.
    expect(text).toContain('<field name="text">Too long. You sent: "far too long". Expected: a string with at most 5 characters.</field>');
    expect(text).not.toContain('MCP error');
    expect(callsReceived(record)).toContainEqual({ name: 'strict_echo', arguments: { text: 'far too long' } });
  });

  it("relays the server's log notification and its ping request, and the client's answer to it", async () => {
    const result = await proxied.client.callTool({ name: 'chatty', arguments: {} });
    expect(textOf(result)).toBe('ping answered: {}');
    expect(logMessages).toContainEqual({ level: 'info', logger: 'raw-inventory', data: 'chatty was called' });
  });

  it('follows notifications/tools/list_changed: the next call is checked against the new contract', async () => {
    const usd = { name: 'create_order', arguments: { sku: 'NEW-1', quantity: 1, currency: 'USD' } };
    expect((await proxied.client.callTool({ name: 'evolve', arguments: {} })).isError).toBeUndefined();
    const text = textOf(await proxied.client.callTool(usd));
    expect(text).toContain('<field name="currency">');
    expect(text).toContain('You sent: "USD". Expected: exactly "CHF".');
    expect(callsReceived(record)).not.toContainEqual(usd);
  });

  it('logs one line per call: tool, outcome and fields, never the values', () => {
    const lines = jsonLines(log);
    expect(lines.find((line) => line.outcome === 'blocked' && line.tool === 'create_order')).toMatchObject({ fields: ['currency'] });
    expect(lines.find((line) => line.outcome === 'moved')).toMatchObject({ tool: 'get_stock', fields: [] });
    expect(lines.find((line) => line.outcome === 'explained')).toMatchObject({ tool: 'strict_echo', fields: ['text'] });
    expect(lines.filter((line) => line.outcome === 'passed').map((line) => line.tool)).toEqual(expect.arrayContaining(['create_order', 'orders', 'check_stock', 'chatty']));
    for (const line of lines) expect(typeof line.time).toBe('string');
    const text = readFileSync(log, 'utf8');
    expect(text).not.toContain('OLD-1');
    expect(text).not.toContain('far too long');
    expect(text).not.toContain('arguments');
  });

  it("lists the tools itself with ids of its own, and keeps the answers from the client", () => {
    const lists = jsonLines(record).filter((message) => message.method === 'tools/list');
    const own = lists.filter((message) => typeof message.id === 'string');
    expect(own.length).toBeGreaterThanOrEqual(3);
    // The session's own prefix (the proxy's pid, the time, a random part), then a count.
    for (const message of own) expect(message.id).toMatch(/^mcp-contract-guard-proxy\/\d+-[0-9a-z]+-[0-9a-z]+\/\d+$/);
    // The SDK client numbers its requests; it never received an answer it did not ask for,
    // or it would have reported an unknown response id on stderr / as a connection error.
    expect(lists.filter((message) => typeof message.id === 'number').length).toBeGreaterThan(0);
  });
});

/** A client's handshake, sent raw: initialize, then initialized. */
function openSession(proxy: RawProxy): void {
  proxy.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } });
  proxy.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

describe('proxy process handling', () => {
  it('closing the client ends the proxy and the server, with nothing left running', async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    try {
      const proxied = await connect(process.execPath, proxyArgs([], RAW_SERVER), { RECORD_FILE: record });
      await proxied.client.listTools();
      const serverGroup = groupOf(jsonLines(record)[0]?.pid as number);
      const proxyPid = proxied.pid;
      expect(groupAlive(serverGroup)).toBe(true);
      expect(alive(proxyPid)).toBe(true);
      await proxied.close();
      expect(alive(proxyPid)).toBe(false);
      expect(groupAlive(serverGroup)).toBe(false);
    } finally {
      files.remove();
    }
  });

  it('exits 0 when the client closes its input, 143 on SIGTERM (servers stopped), and with the server\'s code when it exits', async () => {
    const files = scratch();
    try {
      const record = files.file('record.jsonl');
      const proxy = new RawProxy(proxyArgs([], RAW_SERVER), { RECORD_FILE: record });
      proxy.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      await proxy.answer(1);
      const serverGroup = groupOf(jsonLines(record)[0]?.pid as number);
      expect(await proxy.close()).toBe(0);
      expect(groupAlive(serverGroup)).toBe(false);

      const signalled = new RawProxy(proxyArgs([], RAW_SERVER), { RECORD_FILE: record });
      signalled.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      await signalled.answer(1);
      const signalledGroup = groupOf(jsonLines(record).filter((line) => typeof line.pid === 'number').at(-1)?.pid as number);
      signalled.child.kill('SIGTERM');
      expect(await signalled.exited).toBe(143);
      expect(groupAlive(signalledGroup)).toBe(false);

      const crashing = new RawProxy(proxyArgs([], [process.execPath, '-e', 'process.exit(3)']));
      expect(await crashing.exited).toBe(3);
      const missing = new RawProxy(proxyArgs([], ['no-such-server-binary-mcg']));
      expect(await missing.exited).toBe(2);
      expect(missing.stderr).toContain('the server could not be started');
    } finally {
      files.remove();
    }
  });

  it('answers the calls a client sent before hanging up, even those that waited for the contract', async () => {
    const proxy = new RawProxy(proxyArgs([], RAW_SERVER));
    openSession(proxy);
    proxy.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_order', arguments: { sku: 'P' } } });
    proxy.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'check_stock', arguments: { sku: 'P' } } });
    expect(await proxy.close()).toBe(0);
    const answers = proxy.lines.map((line) => JSON.parse(line) as { id: number; result: { content: Array<{ text: string }> } });
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3]);
    expect(answers[1]?.result.content[0]?.text).toContain('<field name="currency">');
    expect(answers[2]?.result.content[0]?.text).toBe('P: 12');
  });

  it('a --log it cannot write is reported once, and the session goes on', async () => {
    const files = scratch();
    try {
      const proxy = new RawProxy(proxyArgs(['--log', files.dir], RAW_SERVER));
      openSession(proxy);
      proxy.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'check_stock', arguments: { sku: 'P' } } });
      proxy.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'check_stock', arguments: { sku: 'Q' } } });
      expect(await proxy.close()).toBe(0);
      const answers = proxy.lines.map((line) => JSON.parse(line) as { id: number; result: { content: Array<{ text: string }> } });
      expect(answers.map((answer) => answer.result.content?.[0]?.text)).toEqual([undefined, 'P: 12', 'Q: 12']);
      expect(proxy.stderr.match(/cannot write the call log .*EISDIR/g)).toHaveLength(1);
    } finally {
      files.remove();
    }
  });

  it('with --url, answers requests an unreachable server cannot with an error naming the address', async () => {
    const address = `http://127.0.0.1:${await freePort()}/mcp`;
    const proxy = new RawProxy(proxyArgs(['--url', address], []));
    try {
      proxy.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
      expect((await proxy.answer(1)).error).toEqual({ code: -32000, message: `could not reach ${address} (ECONNREFUSED)` });
      expect(await proxy.close()).toBe(0);
    } finally {
      proxy.child.kill();
    }
  });

  it('with --url, reaches a server of the older HTTP+SSE transport; its requests to the client go both ways', async () => {
    const port = await freePort();
    const server = await listeningFixture('sse-only.mjs', { PORT: String(port), OTHER_PORT: '1' });
    try {
      const transport = new StdioClientTransport({ command: process.execPath, args: proxyArgs(['--url', `http://127.0.0.1:${port}/sse`, '--header', 'Authorization: Bearer t'], []), cwd: ROOT, stderr: 'pipe' });
      const client = new Client({ name: 'proxy-test', version: '1.0.0' }, { capabilities: { roots: {} } });
      // The server's tools/list asks for the client's roots first: through the proxy, and back.
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
      await client.connect(transport);
      expect((await client.listTools()).tools.map((tool) => tool.description)).toEqual(["Searches the client's 1 roots."]);
      const refused = await client.callTool({ name: 'scoped', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('<field name="q">Missing. Expected: string.</field>');
      await client.close();
    } finally {
      server.kill();
    }
  });

  it('with --url, follows a redirect to another origin without the user\'s headers', async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const other = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(404).end();
    });
    await new Promise<void>((listening) => other.listen(0, '127.0.0.1', listening));
    // Another origin: localhost is not 127.0.0.1, though it is the same machine.
    const elsewhere = `http://localhost:${(other.address() as AddressInfo).port}/stolen`;
    const moved = createServer((_req, res) => res.writeHead(307, { location: elsewhere }).end());
    await new Promise<void>((listening) => moved.listen(0, '127.0.0.1', listening));
    const proxy = new RawProxy(proxyArgs(['--url', `http://127.0.0.1:${(moved.address() as AddressInfo).port}/mcp`, '--header', 'Authorization: Bearer s3cret', '--header', 'X-Api-Key: k3y'], []));
    try {
      proxy.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
      expect((await proxy.answer(1)).error).toMatchObject({ code: -32000 });
      // The POST, then the GET that looks for the older transport: both followed, neither with the headers.
      expect(seen.length).toBeGreaterThan(0);
      for (const headers of seen) {
        expect(headers.authorization).toBeUndefined();
        expect(headers['x-api-key']).toBeUndefined();
      }
      expect(await proxy.close()).toBe(0);
    } finally {
      proxy.child.kill();
      other.close();
      moved.close();
    }
  });

  it('with --url, an event over the message limit is dropped, not buffered, and the session goes on', async () => {
    const huge = `data: ${'x'.repeat(17 * 1024 * 1024)}\n\n`;
    const upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (method === 'tools/list') return void res.end(huge);
        res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { pong: id } })}\n\n`);
      });
    });
    await new Promise<void>((listening) => upstream.listen(0, '127.0.0.1', listening));
    const proxy = new RawProxy(proxyArgs(['--url', `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`], []));
    try {
      proxy.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      proxy.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      expect((await proxy.answer(2)).result).toEqual({ pong: 2 });
      await proxy.waitFor(() => proxy.stderr.includes('sent an event over'));
      expect(proxy.stderr).toContain('its stream was dropped');
      expect(await proxy.close()).toBe(0);
    } finally {
      proxy.child.kill();
      upstream.close();
    }
  });

  it('starts the server without waiting for the artifact, and stops it when the artifact then proves corrupt', async () => {
    const files = scratch();
    // A FIFO: reading the artifact blocks until the test writes it, after the server has started.
    const artifact = files.file('deltas.json');
    execFileSync('mkfifo', [artifact]);
    const record = files.file('record.jsonl');
    const proxy = new RawProxy(proxyArgs(['--artifact', artifact], RAW_SERVER), { RECORD_FILE: record });
    try {
      const serverPid = await vi.waitFor(() => {
        const pid = jsonLines(record)[0]?.pid;
        expect(pid).toBeTypeOf('number');
        return pid as number;
      }, soon);
      const serverGroup = groupOf(serverPid);
      await writeFile(artifact, '{"version": 7, "tools": {}}');
      expect(await proxy.exited).toBe(2);
      expect(proxy.stderr).toContain('unknown version 7');
      expect(groupAlive(serverGroup)).toBe(false);
    } finally {
      proxy.child.kill('SIGKILL');
      files.remove();
    }
  });

  it('a --usage file that cannot be opened: exit 2 with the message, and the server, started meanwhile, stopped', async () => {
    const files = scratch();
    try {
      // The scratch folder on the server's command line tells its processes apart.
      const proxy = new RawProxy(proxyArgs(['--usage', files.file('no-such-folder/usage.jsonl')], [...RAW_SERVER, files.dir]));
      expect(await proxy.exited).toBe(2);
      expect(proxy.stderr).toContain('cannot be opened for appending');
      expect(await processesLeft(files.dir)).toEqual([]);
    } finally {
      files.remove();
    }
  });

  it('refuses a corrupt artifact, and a missing command, with a message and exit 2', async () => {
    const files = scratch();
    try {
      const corrupt = files.file('broken.json');
      (await import('node:fs')).writeFileSync(corrupt, '{"version": 7, "tools": {}}');
      const refused = new RawProxy(proxyArgs(['--artifact', corrupt], RAW_SERVER));
      expect(await refused.exited).toBe(2);
      expect(refused.stderr).toContain('unknown version 7');
      expect(refused.stderr).toContain(`Regenerate it with "${CLI_COMMAND} diff OLD NEW --artifact ${corrupt}".`);
      const bare = new RawProxy([resolve(ROOT, 'lib/cli.js'), 'proxy', '--artifact', corrupt]);
      expect(await bare.exited).toBe(2);
      expect(bare.stderr).toContain('after "--"');
    } finally {
      files.remove();
    }
  });
});

describe('proxy --listen: sessions over streamable HTTP', () => {
  it('gives each session its own server, ends it on DELETE, and leaves nothing running once stopped', async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    const { url, proxy } = await listeningProxy([], RAW_SERVER, { RECORD_FILE: record });
    try {
      const transports = [new StreamableHTTPClientTransport(url), new StreamableHTTPClientTransport(url)];
      for (const transport of transports) {
        const client = new Client({ name: 'session', version: '1' });
        await client.connect(transport);
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      }
      const pids = jsonLines(record).flatMap((line) => (typeof line.pid === 'number' ? [groupOf(line.pid)] : []));
      expect(pids).toHaveLength(2);
      expect(pids.every((pid) => groupAlive(pid))).toBe(true);
      const ended = transports[0]?.sessionId as string;
      await transports[0]?.terminateSession();
      expect(groupAlive(pids[0] as number)).toBe(false);
      expect(groupAlive(pids[1] as number)).toBe(true);
      const late = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': ended },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(late.status).toBe(404);
      proxy.child.kill('SIGTERM');
      expect(await proxy.exited).toBe(143);
      expect(groupAlive(pids[1] as number)).toBe(false);
    } finally {
      proxy.child.kill('SIGKILL');
      files.remove();
    }
  });

  it('is a gateway with --url: one upstream session per client session, ended with it', async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    const artifact = writeArtifact(files.file('deltas.json'), RAW_DELTAS);
    const { url: upstreamUrl, server } = await httpServer(fixture('raw-inventory.mjs'), { RECORD_FILE: record });
    const { url, proxy } = await listeningProxy(['--artifact', artifact, '--url', upstreamUrl.href], []);
    try {
      const transport = new StreamableHTTPClientTransport(url);
      const client = new Client({ name: 'gateway', version: '1' });
      await client.connect(transport);
      expect(textOf(await client.callTool({ name: 'check_stock', arguments: { sku: 'G' } }))).toBe('G: 12');
      expect(textOf(await client.callTool({ name: 'create_order', arguments: { sku: 'G', quantity: 1 } }))).toContain('<contract_awareness>');
      expect(textOf(await client.callTool({ name: 'chatty', arguments: {} }))).toBe('ping answered: {}');
      await transport.terminateSession();
      const received = jsonLines(record);
      expect(callsReceived(record).map((call) => call.name)).toEqual(['check_stock', 'chatty']);
      expect(received.filter((line) => line.deleted !== undefined)).toHaveLength(1);
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
      server.child.kill();
      files.remove();
    }
  });

  it('answers the requests of a session whose server cannot start with an error, not a silent stream', async () => {
    const { url, proxy } = await listeningProxy([], ['no-such-server-binary-mcg']);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
      });
      const event = /^data: (.*)$/m.exec(await response.text())?.[1] as string;
      expect(JSON.parse(event)).toMatchObject({ id: 1, error: { code: -32000, message: expect.stringContaining('the MCP server could not be started') } });
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
    }
  });

  it('refuses a web page of another origin when listening on loopback, before starting anything', async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    const { url, proxy } = await listeningProxy([], RAW_SERVER, { RECORD_FILE: record });
    try {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } };
      const refused = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'https://attacker.example' },
        body: JSON.stringify(initialize),
      });
      expect(refused.status).toBe(403);
      expect(jsonLines(record)).toEqual([]);
      const elsewhere = await fetch(new URL('/other', url), { method: 'POST', body: '{}' });
      expect(elsewhere.status).toBe(404);
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
      files.remove();
    }
  });
});

describe('proxy: protocol generations, batches and stray lines', () => {
  const STATELESS_META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  };

  it('speaks the stateless revision: lists with the client\'s _meta, checks calls, keeps its own answers', async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    const artifact = writeArtifact(files.file('deltas.json'), RAW_DELTAS);
    const proxy = new RawProxy(proxyArgs(['--artifact', artifact], [...RAW_SERVER, '--stateless']), { RECORD_FILE: record });
    try {
      proxy.send({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: STATELESS_META } });
      expect((await proxy.answer('d')).result).toMatchObject({ supportedVersions: ['2026-07-28'] });
      proxy.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { _meta: { ...STATELESS_META, progressToken: 7 }, name: 'create_order', arguments: { sku: 'S', quantity: 1 } } });
      const blocked = (await proxy.answer('c1')).result as { content: Array<{ text: string }>; isError: boolean };
      expect(blocked.isError).toBe(true);
      expect(blocked.content[0]?.text).toContain('<contract_awareness>');
      proxy.send({ jsonrpc: '2.0', id: 'c2', method: 'tools/call', params: { _meta: STATELESS_META, name: 'check_stock', arguments: { sku: 'S' } } });
      expect((await proxy.answer('c2')).result).toEqual({ content: [{ type: 'text', text: 'S: 12' }] });

      const own = jsonLines(record).filter((message) => message.method === 'tools/list');
      expect(own.length).toBe(3);
      // The client's identity, not its per-request progress token.
      for (const message of own) expect((message.params as { _meta?: unknown })._meta).toEqual(STATELESS_META);
      const ids = proxy.lines.map((line) => (safeParse(line) as { id?: unknown }).id);
      expect(ids).toEqual(['d', 'c1', 'c2']);
      expect(await proxy.close()).toBe(0);
    } finally {
      proxy.child.kill();
      files.remove();
    }
  });

  it('answers the invalid calls of a batch itself and forwards the rest as a batch', async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    const proxy = new RawProxy(proxyArgs([], RAW_SERVER), { RECORD_FILE: record });
    try {
      proxy.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await proxy.answer(1);
      proxy.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const from = proxy.lines.length;
      proxy.send([
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'check_stock', arguments: { sku: 'B' } } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'check_stock', arguments: {} } },
      ]);
      const batches = [await proxy.waitFor((line) => line.startsWith('[') && line.includes('"id":3'), from), await proxy.waitFor((line) => line.startsWith('[') && line.includes('"id":2'), from)];
      const [own, server] = batches.map((line) => JSON.parse(line) as Array<{ id: number; result: { content: Array<{ text: string }>; isError?: boolean } }>);
      expect(own).toHaveLength(1);
      expect(own?.[0]?.result.isError).toBe(true);
      expect(own?.[0]?.result.content[0]?.text).toContain('<field name="sku">');
      expect(server).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'B: 12' }] } }]);
      const batchesReceived = jsonLines(record).filter((message) => message.method === 'tools/call');
      expect(batchesReceived.map((message) => message.id)).toEqual([2]);
    } finally {
      await proxy.close();
      files.remove();
    }
  });

  it('relays lines that are not JSON-RPC unchanged, reports the first, and keeps the session', async () => {
    const proxy = new RawProxy(proxyArgs([], [...RAW_SERVER, '--banner']));
    try {
      expect(await proxy.waitFor(() => true)).toBe('raw-inventory 2.0.0 ready');
      proxy.send('this is not json');
      const parseError = (await proxy.answer(null)) as { error?: { code?: number } };
      expect(parseError.error?.code).toBe(-32700);
      proxy.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
      expect((await proxy.answer(9)).result).toEqual({});
      expect(proxy.stderr).toContain('the server wrote a line that is not JSON-RPC to stdout; it is relayed unchanged');
      expect(proxy.stderr).toContain('raw-inventory 2.0.0 ready');
    } finally {
      await proxy.close();
    }
  });
});

describe('proxy --no-validate', () => {
  it("forwards every call and only explains the server's own errors, including a renamed tool's", async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    const artifact = writeArtifact(files.file('deltas.json'), RAW_DELTAS);
    const proxied = await connect(process.execPath, proxyArgs(['--artifact', artifact, '--no-validate'], RAW_SERVER), { RECORD_FILE: record });
    try {
      // The raw server checks nothing: an old-shaped call now reaches it.
      const old = await proxied.client.callTool({ name: 'create_order', arguments: { sku: 'NV', quantity: 1 } });
      expect(textOf(old)).toBe('ordered 1 NV in undefined');
      const renamed = textOf(await proxied.client.callTool({ name: 'get_stock', arguments: { sku: 'A' } }));
      expect(renamed).toContain('<tool_error code="UNKNOWN_TOOL">');
      expect(renamed).toContain('Call "check_stock" instead');
      const strict = textOf(await proxied.client.callTool({ name: 'strict_echo', arguments: { text: 'too long' } }));
      expect(strict).toContain('<field name="text">Too long.');
      expect(callsReceived(record).map((call) => call.name)).toEqual(['create_order', 'get_stock', 'strict_echo']);
    } finally {
      await proxied.close();
      files.remove();
    }
  });
});

describe('proxy around a published server (@modelcontextprotocol/server-everything)', () => {
  const EVERYTHING = [process.execPath, resolve(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
  const files = scratch();
  const artifact = writeArtifact(files.file('deltas.json'), {
    echo: [
      delta({ field: 'inputSchema.properties.message', kind: 'required-property-added', message: 'Property "message" was added and is required.', current: { type: 'string' } }),
      delta({ field: 'name', kind: 'tool-renamed', message: 'Tool "say" was renamed to "echo".', renamedFrom: 'say', renamedTo: 'echo' }),
    ],
  });
  let proxied: Connected;
  let direct: Connected;
  beforeAll(async () => {
    proxied = await connect(process.execPath, proxyArgs(['--artifact', artifact], EVERYTHING));
    direct = await connect(EVERYTHING[0] as string, EVERYTHING.slice(1));
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
    files.remove();
  });

  it('lists the same tools and returns the same results', async () => {
    expect(await proxied.client.listTools()).toEqual(await direct.client.listTools());
    for (const call of [
      { name: 'echo', arguments: { message: 'hello' } },
      { name: 'get-sum', arguments: { a: 2, b: 3 } },
      { name: 'get-structured-content', arguments: { location: 'Chicago' } },
    ]) {
      expect(await proxied.client.callTool(call)).toEqual(await direct.client.callTool(call));
    }
  });

  it('answers an old-shaped call with the enriched error and a renamed tool with its new name', async () => {
    const text = textOf(await proxied.client.callTool({ name: 'echo', arguments: {} }));
    expect(text).toContain('<validation_error tool="echo">');
    expect(text).toContain('<field name="message">Missing. Expected: string.</field>');
    expect(text).toContain('<contract_awareness>');
    expect(text).not.toContain('MCP error');
    expect(textOf(await proxied.client.callTool({ name: 'say', arguments: { message: 'x' } }))).toContain('Call "echo" instead');
  });

  it("with --no-validate, explains the SDK's own validation error", async () => {
    const unchecked = await connect(process.execPath, proxyArgs(['--artifact', artifact, '--no-validate'], EVERYTHING));
    try {
      const result = await unchecked.client.callTool({ name: 'get-sum', arguments: { a: 'two', b: 3 } });
      const text = textOf(result);
      expect(result.isError).toBe(true);
      expect(text).toContain('<validation_error tool="get-sum">');
      expect(text).toContain('<field name="a">Wrong type. You sent: "two". Expected: number.</field>');
      const bare = textOf(await direct.client.callTool({ name: 'get-sum', arguments: { a: 'two', b: 3 } }));
      expect(bare).toBe('MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at a');
    } finally {
      await unchecked.close();
    }
  });

  it('closing the client leaves neither the proxy nor the server running', async () => {
    const once = await connect(process.execPath, proxyArgs([], EVERYTHING));
    await once.client.listTools();
    await expectCloseLeavesNothing(once);
  });
});
