/**
 * The older HTTP+SSE transport (protocol 2024-11-05), which deployed servers still speak: a
 * URL that refuses the streamable transport's POST is opened as an event stream, as the
 * specification's backwards-compatibility rule says, and captured through it. The server here
 * is the SDK's own SSEServerTransport, then FastMCP's transport="sse" (Python; skipped, with
 * the reason in its title, where no Python with fastmcp is found).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixture, freePort, listeningFixture } from '../helpers/processes.js';
import { findPython } from '../helpers/python.js';

describe('a server of the older HTTP+SSE transport', () => {
  let server: ChildProcess;
  let other: Server;
  let base: string;
  /** What reached the other origin: nothing may. */
  const elsewhere: string[] = [];

  beforeAll(async () => {
    const [port, otherPort] = [await freePort(), await freePort()];
    other = createServer((req, res) => {
      elsewhere.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(202).end();
    });
    await new Promise<void>((resolve) => other.listen(otherPort, '127.0.0.1', resolve));
    server = await listeningFixture('sse-only.mjs', { PORT: String(port), OTHER_PORT: String(otherPort) });
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => {
    server?.kill();
    other?.close();
  });

  const auth = ['--header', 'Authorization: Bearer t'];

  it('is captured through its event stream, its own requests to the client answered on the way', async () => {
    const result = await cli(['compile', '--url', `${base}/sse`, ...auth, '--format', 'json']);
    expect(result.code).toBe(0);
    const contracts = JSON.parse(result.stdout);
    expect(contracts.server.name).toBe('sse-only');
    // Its tools/list waited for our answer to roots/list, which went to the endpoint the stream named.
    expect(contracts.tools.scoped.contract.description).toBe("Searches the client's 0 roots.");
    expect(contracts.tools.scoped.contract.inputSchema.required).toEqual(['q']);
  });

  it('lock, then check, through it', async () => {
    const lockfile = `${process.env.TMPDIR ?? '/tmp'}/mcg-sse-${process.pid}.lock.json`;
    expect((await cli(['lock', '--url', `${base}/sse`, ...auth, '--lockfile', lockfile, '--quiet'])).code).toBe(0);
    const check = await cli(['check', '--url', `${base}/sse`, ...auth, '--lockfile', lockfile]);
    expect(check.stdout).toContain('✓ sse-only matches');
    expect(check.code).toBe(0);
  });

  it('an authentication failure is said as one, not taken for another transport', async () => {
    const result = await cli(['compile', '--url', `${base}/sse`, '--no-heal']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('401');
    expect(result.stderr).toMatch(/credentials/i);
  });

  it('an endpoint on another origin is refused: no message, and no header, goes there', async () => {
    const result = await cli(['compile', '--url', `${base}/elsewhere`, ...auth, '--no-heal', '--timeout', '5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${base}/elsewhere named a message endpoint on another origin`);
    expect(elsewhere).toEqual([]);
  });

  it('given a bare origin, tries /mcp, then /sse, and says which URL to use', async () => {
    const result = await cli(['compile', '--url', base, ...auth, '--format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).server.name).toBe('sse-only');
    expect(result.stderr).toContain('healed after 3 attempts: tried /mcp, where MCP servers usually serve; tried /sse, where servers of the older HTTP+SSE transport usually serve.');
    expect(result.stderr).toContain(`To make it work the first time, use: --url ${base}/sse`);
  });

  it('a URL that serves neither transport keeps its diagnosis', async () => {
    const result = await cli(['compile', '--url', `${base}/nothing`, ...auth, '--no-heal']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${base}/nothing answered HTTP 404`);
  });
});

describe('a bare origin of a streamable HTTP server that serves /mcp only', () => {
  it('is healed to /mcp, and a path the user gave is not second-guessed', async () => {
    const port = await freePort();
    const server = await listeningFixture('http-only.mjs', { PORT: String(port), MCP_PATH: '/mcp' });
    try {
      const origin = `http://127.0.0.1:${port}`;
      const healed = await cli(['compile', '--url', origin]);
      expect(healed.code).toBe(0);
      expect(healed.stderr).toContain('healed after 2 attempts: tried /mcp, where MCP servers usually serve.');
      expect(healed.stderr).toContain(`To make it work the first time, use: --url ${origin}/mcp`);
      const given = await cli(['compile', '--url', `${origin}/api`]);
      expect(given.code).toBe(2);
      expect(given.stderr).toContain(`${origin}/api answered HTTP 404`);
      expect(given.stderr).not.toContain('tried /mcp');
    } finally {
      server.kill();
    }
  });
});

const { python, skip } = findPython();

describe.skipIf(skip !== '')(`a FastMCP server run with transport="sse" (Python)${skip ? ` — ${skip}` : ''}`, () => {
  let server: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    server = spawn(python, [fixture('fastmcp_inventory.py'), '--sse', String(port)], { stdio: 'ignore' });
    url = `http://127.0.0.1:${port}/sse`;
    // Uvicorn logs nothing at log_level ERROR: wait until the port answers.
    for (let waited = 0; waited < 30_000; waited += 200) {
      if (await fetch(url, { method: 'HEAD' }).then(() => true, () => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`the FastMCP server did not listen on ${url}`);
  });
  afterAll(() => server?.kill());

  it('is captured through its event stream, as over stdio', async () => {
    const [overSse, overStdio] = await Promise.all([
      cli(['compile', '--url', url, '--format', 'json', '--quiet']),
      cli(['compile', '--command', `${python} ${fixture('fastmcp_inventory.py')}`, '--format', 'json', '--quiet']),
    ]);
    expect(overSse.stderr).toBe('');
    expect(overSse.code).toBe(0);
    const [sse, stdio] = [JSON.parse(overSse.stdout), JSON.parse(overStdio.stdout)];
    expect(Object.keys(sse.tools).sort()).toEqual(['add', 'create_order', 'pay']);
    expect(sse.tools).toEqual(stdio.tools);
  });
});
