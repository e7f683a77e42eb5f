/**
 * What the proxy must not lose between a client and a streamable HTTP server (`--url`, on
 * stdio and as a gateway with `--listen`): the server's own requests during a call, sent on the
 * GET stream (callbacks-http.mjs holds each GET a while, so a request forwarded before that
 * stream is open loses them), and the answer of a POST stream the server cuts before
 * answering (resumable only with Last-Event-ID). Through real processes: an SDK client, the
 * built proxy, and a server on the SDK.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT, fixture } from '../helpers/processes.js';
import { soon } from '../helpers/timing.js';
import { RawProxy, httpServer, jsonLines, listeningProxy, postMessage, proxyArgs, scratch, textOf } from './helpers.js';

describe.each(['url', 'listen --url'] as const)('proxy (%s) in front of a server that calls back and cuts its streams', (mode) => {
  const files = scratch();
  const record = files.file('record.jsonl');
  let server: RawProxy;
  let proxy: RawProxy | undefined;
  let client: Client;

  beforeAll(async () => {
    // Each GET is held 300 ms before it opens; each POST stream asks for a 20 ms retry.
    const served = await httpServer(fixture('callbacks-http.mjs'), { RECORD_FILE: record }, ['--slow-get', '300', '--retry', '20']);
    server = served.server;
    const url = served.url.href;
    client = new Client({ name: 'streams-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'scripted', content: { type: 'text', text: 'hi there' } }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ana' } }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    if (mode === 'url') {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: proxyArgs(['--url', url], []), cwd: ROOT, stderr: 'pipe' }));
    } else {
      const listening = await listeningProxy(['--url', url], []);
      proxy = listening.proxy;
      await client.connect(new StreamableHTTPClientTransport(listening.url));
    }
  });
  afterAll(async () => {
    await client?.close();
    proxy?.child.kill('SIGTERM');
    await proxy?.exited;
    server?.child.kill();
    files.remove();
  });

  it("delivers every request the server makes during a call (sampling, elicitation, roots, ping), none lost", async () => {
    const result = await client.callTool({ name: 'ask_client', arguments: {} });
    expect(textOf(result)).toBe('sampled: hi there; elicited: Ana; roots: file:///work; pinged');
  });

  it('resumes a stream the server cut before its answer, from the last event id, after the retry the server asked for', async () => {
    const result = await client.callTool({ name: 'cut', arguments: {} });
    expect(textOf(result)).toBe('answered after the stream was cut');
    const resumptions = jsonLines(record).filter((line) => typeof line.get === 'string');
    expect(resumptions.length).toBeGreaterThan(0);
    expect(resumptions.every((line) => /::\d+$/.test(line.get as string))).toBe(true);
    // The session goes on.
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('still here');
  });
});

describe('proxy --listen: what the server sends while its client has no stream open', () => {
  it('is held, and delivered on the next stream the client opens, a POST as much as a GET', async () => {
    const files = scratch();
    const record = files.file('record.jsonl');
    const { url, proxy } = await listeningProxy([], [process.execPath, fixture('after-answer.mjs')], { RECORD_FILE: record });
    const post = (message: unknown, session?: string) => postMessage(url, message, session);
    try {
      const session = (await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'no-get', version: '1' } } })).session as string;
      expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
      // The server answers, then logs and asks for a ping: the call's stream has ended by then.
      const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'finish', arguments: {} } }, session);
      expect(call.body).toContain('finished');
      expect(call.body).not.toContain('after the answer');
      const next = await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, session);
      const events = [...next.body.matchAll(/^data: (.+)$/gm)].map((match) => JSON.parse(match[1] as string) as Record<string, unknown>);
      expect(events).toEqual([
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after the answer' } },
        { jsonrpc: '2.0', id: 'after-1', method: 'ping' },
        { jsonrpc: '2.0', id: 3, result: {} },
      ]);
      expect((await post({ jsonrpc: '2.0', id: 'after-1', result: {} }, session)).status).toBe(202);
      await vi.waitFor(() => expect(jsonLines(record).some((line) => line.id === 'after-1' && line.result !== undefined)).toBe(true), soon);
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
      files.remove();
    }
  });
});

describe('proxy --listen: a stream whose client connection drops before the answer', () => {
  it('is resumed with Last-Event-ID: what was sent after that event, then the answer', async () => {
    const { url, proxy } = await listeningProxy([], [process.execPath, fixture('raw-inventory.mjs')]);
    try {
      const session = (await postMessage(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'drops', version: '1' } } })).session as string;
      expect((await postMessage(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session };
      // chatty logs, then asks the client for a ping, and answers the call once it has it.
      const dropped = new AbortController();
      const call = await fetch(url, { method: 'POST', headers, signal: dropped.signal, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'chatty', arguments: {} } }) });
      const reader = call.body!.pipeThrough(new TextDecoderStream()).getReader();
      let seen = '';
      while (!seen.includes('"method":"ping"')) seen += (await reader.read()).value ?? '';
      const ids = [...seen.matchAll(/^id: (\S+)$/gm)].map((match) => match[1] as string);
      expect(ids).toHaveLength(3); // the priming event, the log, the ping
      dropped.abort();
      const ping = /"id":"(srv-\d+)"/.exec(seen)?.[1];
      expect((await postMessage(url, { jsonrpc: '2.0', id: ping, result: {} }, session)).status).toBe(202);
      // Resumed from the log's event: the ping again, then the answer, and the stream ends.
      const resumed = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': ids[1] as string } });
      const events = [...(await resumed.text()).matchAll(/^data: (.+)$/gm)].map((match) => JSON.parse(match[1] as string) as Record<string, unknown>);
      expect(events).toEqual([
        { jsonrpc: '2.0', id: ping, method: 'ping' },
        { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'ping answered: {}' }] } },
      ]);
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
    }
  });
});
