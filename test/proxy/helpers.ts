import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import type { Delta } from '../../src/protocol/index.js';
import { report } from '../runtime/helpers.js';
import { ROOT, groupAlive } from '../helpers/processes.js';

export const CLI = resolve(ROOT, 'lib/cli.js');

/** A scratch folder for one test's artifact, record and log files. */
export function scratch(): { dir: string; file: (name: string) => string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcg-proxy-'));
  return { dir, file: (name) => join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes the delta artifact `diff --artifact` would write for these tools' deltas. */
export function writeArtifact(path: string, tools: Record<string, Delta[]>): string {
  writeFileSync(path, JSON.stringify(report(tools)));
  return path;
}

export interface Connected {
  client: Client;
  /** The process the client launched: the proxy, or the server itself. */
  pid: number;
  /** What that process (and the server, whose stderr is the proxy's) wrote to stderr so far. */
  stderr: () => string;
  /** Ends the session the way the client does: closes stdin, or DELETEs the HTTP session and stops the proxy. */
  close: () => Promise<void>;
}

/** An SDK client over stdio to `command` (the proxy or the server itself). */
export async function connect(command: string, args: string[], env: Record<string, string> = {}): Promise<Connected> {
  const transport = new StdioClientTransport({ command, args, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe', cwd: ROOT });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'proxy-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid as number, stderr: () => stderr, close: () => client.close() };
}

/** The proxy started with `--listen 127.0.0.1:0`, and where it listens. */
export async function listeningProxy(flags: string[], server: string[], env: Record<string, string> = {}): Promise<{ url: URL; proxy: RawProxy }> {
  const proxy = new RawProxy(proxyArgs(['--listen', '127.0.0.1:0', ...flags], server), env);
  return { url: await announcedUrl(proxy), proxy };
}

/** A node script serving streamable HTTP on `port` (`--http PORT`, 0: a free one, then `args`), and where it listens. */
export async function httpServer(script: string, env: Record<string, string> = {}, args: string[] = [], port = 0): Promise<{ url: URL; server: RawProxy }> {
  const server = new RawProxy([script, '--http', String(port), ...args], env);
  return { url: await announcedUrl(server), server };
}

/** The address a process announces on stderr ("listening on http://…"). */
function announcedUrl(child: RawProxy): Promise<URL> {
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(child.stderr);
      if (match !== null) {
        clearInterval(poll);
        resolve(new URL(match[1] as string));
      }
    }, 20);
    void child.exited.then((code) => {
      clearInterval(poll);
      reject(new Error(`exited with ${code} before listening: ${child.stderr}`));
    });
  });
}

/** An SDK client over streamable HTTP to a proxy it starts with --listen around `server`. */
export async function connectHttp(flags: string[], server: string[], env: Record<string, string> = {}): Promise<Connected & { transport: StreamableHTTPClientTransport; proxy: RawProxy }> {
  const { url, proxy } = await listeningProxy(flags, server, env);
  const transport = new StreamableHTTPClientTransport(url);
  const client = new Client({ name: 'proxy-test', version: '1.0.0' });
  await client.connect(transport);
  const close = async () => {
    await transport.terminateSession().catch(() => {});
    await client.close();
    proxy.child.kill('SIGTERM');
    await proxy.exited;
  };
  return { client, transport, proxy, pid: proxy.child.pid as number, stderr: () => proxy.stderr, close };
}

/** POSTs one message to an MCP endpoint (in `session` when given): the status, the session id it names, and the body. */
export async function postMessage(url: URL, message: unknown, session?: string): Promise<{ status: number; session: string | null; body: string }> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session !== undefined ? { 'mcp-session-id': session } : {}) };
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });
  return { status: response.status, session: response.headers.get('mcp-session-id'), body: await response.text() };
}

/** The proxy's argv around a server command. */
export function proxyArgs(flags: string[], server: string[]): string[] {
  return [CLI, 'proxy', ...flags, ...(server.length > 0 ? ['--', ...server] : [])];
}

/** Every tool of a paginated listing, as the client receives it. */
export async function listAllTools(client: Client): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page += 1) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new Error('the listing never ended');
}

export function textOf(result: unknown): string {
  return ((result as { content: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('\n');
}

/** The JSON lines of a file (none when it does not exist yet). */
export function jsonLines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The tools/call requests a recording fixture server received. */
export function callsReceived(recordFile: string): Array<{ name: string; arguments?: unknown }> {
  return jsonLines(recordFile)
    .filter((message) => message.method === 'tools/call')
    .map((message) => message.params as { name: string; arguments?: unknown });
}

/** True while the process `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The proxy driven line by line, for what the SDK client cannot send: another protocol
 * generation, batches, and what it does with lines that are not JSON.
 */
export class RawProxy {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = '';
  private waiters: Array<() => void> = [];
  readonly exited: Promise<number | null>;

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env } });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.lines.push(line);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
  }

  send(message: unknown): void {
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  /** The first line received (from `from` on) that satisfies `test`. */
  async waitFor(test: (line: string) => boolean, from = 0): Promise<string> {
    for (let round = 0; round < 500; round += 1) {
      const found = this.lines.slice(from).find(test);
      if (found !== undefined) return found;
      await new Promise<void>((wake) => {
        this.waiters.push(wake);
        setTimeout(wake, 100);
      });
    }
    throw new Error(`no such line arrived; got:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
  }

  /** The answer with this id. */
  async answer(id: unknown): Promise<Record<string, unknown>> {
    const line = await this.waitFor((text) => {
      const parsed = safeParse(text);
      return parsed !== null && !Array.isArray(parsed) && typeof parsed === 'object' && (parsed as { id?: unknown }).id === id;
    });
    return JSON.parse(line) as Record<string, unknown>;
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

export function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The pids of the processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

/** Closes a client of the stdio proxy and checks that neither the proxy nor the server it launched (its whole process group) is left. */
export async function expectCloseLeavesNothing(connected: Connected): Promise<void> {
  const [serverPid] = childrenOf(connected.pid);
  expect(serverPid, 'the proxy has started the server').toBeDefined();
  expect(groupAlive(serverPid as number)).toBe(true);
  await connected.close();
  expect(alive(connected.pid)).toBe(false);
  expect(groupAlive(serverPid as number)).toBe(false);
}
