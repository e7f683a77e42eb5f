/**
 * `proxy --listen` sessions that end: clients that open sessions and walk away without DELETE
 * must not lock the others out (the session idle the longest makes room, an idle one expires),
 * and an ended session's id gets 404, the protocol's word for "start a new session".
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serveHttp } from '../../src/proxy/http.js';
import { parseProxyArgs } from '../../src/proxy/args.js';
import { launchServer } from '../../src/proxy/server-link.js';
import { SessionTable, type TableSession } from '../../src/proxy/sessions.js';
import { fixture } from '../helpers/processes.js';
import { soon } from '../helpers/timing.js';
import { alive, httpServer, jsonLines, listeningProxy, postMessage, scratch, textOf, type RawProxy } from './helpers.js';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'walks-away', version: '1' } } };
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const post = postMessage;

describe('proxy --listen sessions (real processes)', () => {
  it('serves a new client after 1,000 sessions were opened and abandoned, and tells an evicted one to start anew (404)', async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    const { url: upstream, server } = await httpServer(fixture('raw-inventory.mjs'), { RECORD_FILE: record });
    const { url, proxy } = await listeningProxy(['--url', upstream.href, '--max-sessions', '8'], []);
    try {
      // Seven clients at a time, each opening sessions one after another: fewer than the cap
      // are ever waiting for an answer, so there is always an idle session to end.
      const opened: string[] = [];
      let started = 0;
      await Promise.all(
        Array.from({ length: 7 }, async () => {
          while (started < 1000) {
            started += 1;
            const answer = await post(url, INITIALIZE);
            expect(answer.status, answer.body).toBe(200);
            opened.push(answer.session as string);
          }
        }),
      );
      const client = new Client({ name: 'newcomer', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url));
      expect(textOf(await client.callTool({ name: 'check_stock', arguments: { sku: 'N' } }))).toBe('N: 12');
      await client.close();
      expect((await post(url, { jsonrpc: '2.0', id: 2, method: 'ping' }, opened[0])).status).toBe(404);
      // Each session made room for was ended upstream too, with a DELETE.
      proxy.child.kill('SIGTERM');
      expect(await proxy.exited).toBe(143);
      expect(jsonLines(record).filter((line) => line.deleted !== undefined)).toHaveLength(1001);
    } finally {
      proxy.child.kill('SIGKILL');
      server.child.kill();
      files.remove();
    }
  });

  it('stops the server process of each session it ends to make room', async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    const { url, proxy } = await listeningProxy(['--max-sessions', '2'], [process.execPath, fixture('raw-inventory.mjs')], { RECORD_FILE: record });
    try {
      for (let i = 0; i < 5; i += 1) expect((await post(url, INITIALIZE)).status).toBe(200);
      const pids = jsonLines(record).flatMap((line) => (typeof line.pid === 'number' ? [line.pid] : []));
      expect(pids).toHaveLength(5);
      // Each server runs under its supervisor (containment.ts), whose group it shares: the server's own pid is what tells.
      await vi.waitFor(() => expect(pids.filter((pid) => alive(pid))).toEqual(pids.slice(3)), soon);
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
      files.remove();
    }
  });

  it('ends a gateway session whose upstream session ended (404 there), so its client gets 404 and starts anew', async () => {
    const first = await httpServer(fixture('raw-inventory.mjs'));
    const { url, proxy } = await listeningProxy(['--url', first.url.href], []);
    let restarted: RawProxy | undefined;
    try {
      const session = (await post(url, INITIALIZE)).session as string;
      expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
      // The server restarts on the same port: it knows the session no more.
      first.server.child.kill();
      await first.server.exited;
      restarted = (await httpServer(fixture('raw-inventory.mjs'), {}, [], Number(first.url.port))).server;
      const call = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'check_stock', arguments: { sku: 'A' } } }, session);
      expect(call.body).toContain('ended the session (HTTP 404)');
      await vi.waitFor(async () => expect((await post(url, { jsonrpc: '2.0', id: 3, method: 'ping' }, session)).status).toBe(404), soon);
      // A new session is served by the restarted server.
      const client = new Client({ name: 'anew', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url));
      expect(textOf(await client.callTool({ name: 'check_stock', arguments: { sku: 'B' } }))).toBe('B: 12');
      await client.close();
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
      restarted?.child.kill();
    }
  });

  it('parses --max-sessions, --session-idle and --[no-]explain-all, and refuses what makes no sense', () => {
    expect(parseProxyArgs(['--listen', '127.0.0.1:0', '--max-sessions', '3', '--session-idle', '90s', '--', 'server']).sessions).toEqual({ maxSessions: 3, idleMs: 90_000 });
    expect(parseProxyArgs(['--listen', '127.0.0.1:0', '--session-idle', '2h', '--', 'server']).sessions?.idleMs).toBe(7_200_000);
    expect(parseProxyArgs(['--listen', '127.0.0.1:0', '--session-idle', '45', '--', 'server']).sessions?.idleMs).toBe(45_000);
    expect(parseProxyArgs(['--listen', '127.0.0.1:0', '--', 'server']).sessions).toEqual({ maxSessions: 32, idleMs: 1_800_000 });
    expect(() => parseProxyArgs(['--listen', '127.0.0.1:0', '--max-sessions', '0', '--', 'server'])).toThrow('--max-sessions takes a whole number of at least 1; got "0".');
    expect(() => parseProxyArgs(['--listen', '127.0.0.1:0', '--session-idle', 'soon', '--', 'server'])).toThrow('--session-idle takes a duration such as 90s, 30m or 2h (at most 24 days); got "soon".');
    expect(() => parseProxyArgs(['--max-sessions', '4', '--', 'server'])).toThrow('--max-sessions only applies with --listen.');
    // And what tools without deltas get (own-answers.test.ts shows each at work).
    expect(parseProxyArgs(['--', 'server']).explainAll).toBe(true);
    expect(parseProxyArgs(['--explain-all', '--', 'server']).explainAll).toBe(true);
    expect(parseProxyArgs(['--no-explain-all', '--', 'server']).explainAll).toBe(false);
    expect(() => parseProxyArgs(['--explain-all', '--no-explain-all', '--', 'server'])).toThrow('Give --explain-all or --no-explain-all, not both.');
  });
});

describe('proxy --listen: idle sessions expire (the clock faked, a real server process)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends a session idle past --session-idle (its id then gets 404), never one whose call is in progress', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    let stop!: (code: number) => void;
    const stopped = new Promise<number>((resolve) => (stop = resolve));
    let announced!: (url: URL) => void;
    const listening = new Promise<URL>((resolve) => (announced = resolve));
    const relay = {
      deltas: new Map(),
      validate: true,
      warn: (message: string) => {
        const match = /listening on (\S+)/.exec(message);
        if (match !== null) announced(new URL(match[1] as string));
      },
    };
    const served = serveHttp(() => launchServer([process.execPath, fixture('raw-inventory.mjs')]), relay, { host: '127.0.0.1', port: 0 }, stopped, { maxSessions: 4, idleMs: 60_000 });
    try {
      const url = await listening;
      const idle = (await post(url, INITIALIZE)).session as string;
      const busy = (await post(url, INITIALIZE)).session as string;
      expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, busy)).status).toBe(202);
      // A call in progress: the server asks the client for a ping and answers once it has it.
      const call = fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': busy }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'chatty', arguments: {} } }) });
      const stream = (await call).body!.pipeThrough(new TextDecoderStream()).getReader();
      let seen = '';
      while (!seen.includes('"method":"ping"')) seen += (await stream.read()).value ?? '';

      vi.advanceTimersByTime(59_000);
      expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, idle)).status).toBe(202);
      vi.advanceTimersByTime(60_000 + 60_000);
      expect((await post(url, { jsonrpc: '2.0', id: 2, method: 'ping' }, idle)).status).toBe(404);
      // The busy session is still there: its client answers the ping, and the call completes.
      const ping = /"id":"(srv-\d+)"/.exec(seen)?.[1];
      expect((await post(url, { jsonrpc: '2.0', id: ping, result: {} }, busy)).status).toBe(202);
      while (!seen.includes('ping answered')) seen += (await stream.read()).value ?? '';
    } finally {
      stop(0);
      await served;
    }
  });
});

describe('SessionTable', () => {
  function session(id: string, idleSince: number | undefined): TableSession & { closed: boolean } {
    const made = { id, closed: false, idleSince: () => idleSince, close: async () => void (made.closed = true) };
    return made;
  }

  it('makes room by ending the session idle the longest, and refuses when every session is busy', () => {
    const table = new SessionTable({ maxSessions: 3, idleMs: 1000 }, () => 10_000);
    const [a, b, c] = [session('a', 500), session('b', 100), session('c', undefined)];
    for (const each of [a, b, c]) table.add(each);
    expect(table.makeRoom()).toBe(true);
    expect(b.closed).toBe(true);
    expect(table.get('b')).toBeUndefined();
    expect(table.size).toBe(2);
    expect(table.makeRoom()).toBe(true);
    expect(a.closed).toBe(false);
    const busy = new SessionTable({ maxSessions: 1, idleMs: 1000 }, () => 10_000);
    busy.add(session('d', undefined));
    expect(busy.makeRoom()).toBe(false);
  });

  it('sweeps only the sessions idle longer than idleMs', () => {
    let now = 0;
    const table = new SessionTable({ maxSessions: 10, idleMs: 1000 }, () => now);
    const [old, fresh, working] = [session('old', 0), session('fresh', 900), session('working', undefined)];
    for (const each of [old, fresh, working]) table.add(each);
    now = 1000;
    table.sweep();
    expect(old.closed).toBe(false);
    now = 1001;
    table.sweep();
    expect([old.closed, fresh.closed, working.closed]).toEqual([true, false, false]);
    expect(table.size).toBe(2);
  });
});
