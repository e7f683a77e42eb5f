/**
 * Streamable HTTP, as an attacker might point it: redirects to another origin never carry the
 * user's headers, redirect loops end, and a URL's credentials never reach a message. Over TLS,
 * a certificate Node does not trust is said as such, with what makes it trusted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/compile/redact.js';
import { cli } from '../helpers/cli.js';
import { ROOT, fixture, freePort, listeningFixture } from '../helpers/processes.js';

describe('redirects', () => {
  let server: ChildProcess;
  let a: string;
  let b: string;
  beforeAll(async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    server = spawn(process.execPath, [fixture('redirects.mjs')], { env: { ...process.env, PORT: String(portA), PORT_B: String(portB) }, stdio: ['ignore', 'ignore', 'pipe'] });
    let seen = '';
    await new Promise<void>((resolve) =>
      server.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        seen += chunk;
        if (seen.includes('origin a listening') && seen.includes('origin b listening')) resolve();
      }),
    );
    a = `http://127.0.0.1:${portA}`;
    b = `http://127.0.0.1:${portB}`;
  });
  afterAll(() => server.kill());

  const headers = ['--header', 'Authorization: Bearer s3cret', '--header', 'X-Api-Key: k1'];
  const received = (stdout: string) => (JSON.parse(stdout).tools.headers.contract.description as string).replace('received: ', '').split(' ');

  it('on the same origin: followed with the headers', async () => {
    const result = await cli(['compile', '--url', `${a}/same`, ...headers, '--format', 'json', '--quiet']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).server.name).toBe('origin-a');
    expect(received(result.stdout)).toEqual(expect.arrayContaining(['authorization', 'x-api-key', 'mcp-protocol-version']));
  });

  it('to another origin: followed without the custom headers', async () => {
    const result = await cli(['compile', '--url', `${a}/cross`, ...headers, '--format', 'json', '--quiet']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).server.name).toBe('origin-b');
    const names = received(result.stdout);
    expect(names).toContain('mcp-protocol-version');
    expect(names).not.toContain('authorization');
    expect(names).not.toContain('x-api-key');
  });

  it("a URL's user and password: sent as Basic authorization on its origin, never to another", async () => {
    const withUser = (origin: string, path: string) => origin.replace('http://', 'http://alice:pw@') + path;
    const direct = await cli(['compile', '--url', withUser(b, '/mcp'), '--format', 'json', '--quiet']);
    expect(direct.stderr).toBe('');
    expect(received(direct.stdout)).toContain('authorization');
    const cross = await cli(['compile', '--url', withUser(a, '/cross'), '--format', 'json', '--quiet']);
    expect(cross.stderr).toBe('');
    expect(JSON.parse(cross.stdout).server.name).toBe('origin-b');
    expect(received(cross.stdout)).not.toContain('authorization');
  });

  it('a loop: stops after a bounded number of hops', async () => {
    const result = await cli(['compile', '--url', `${a}/loop`, '--no-heal']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${a}/loop redirected more than 5 times (a redirect loop?)`);
  });
});

describe('a URL with credentials', () => {
  it('never appears in errors, progress, the command to run again, or the JSON failure', async () => {
    const port = await freePort();
    const url = `http://alice:hunter2@127.0.0.1:${port}/mcp?api_key=SECRET123&team=blue&token=T0K3N`;
    for (const format of ['text', 'json']) {
      const result = await cli(['compile', '--url', url, '--timeout', '2', '--format', format]);
      expect(result.code).toBe(2);
      const output = result.stdout + result.stderr;
      for (const secret of ['alice', 'hunter2', 'SECRET123', 'T0K3N']) expect(output).not.toContain(secret);
      expect(output).toContain(`http://***@127.0.0.1:${port}/mcp?api_key=***&team=blue&token=***`);
    }
  });

  it('redactUrl: user info and credential-like parameters, the rest as written', () => {
    expect(redactUrl('https://u:p@host.example/mcp')).toBe('https://***@host.example/mcp');
    expect(redactUrl('https://t0ken@host.example/mcp')).toBe('https://***@host.example/mcp');
    expect(redactUrl('https://host.example/mcp?key=abc&region=eu#access_token=xyz')).toBe('https://host.example/mcp?key=***&region=eu#access_token=***');
    expect(redactUrl('http://host.example:8080/sse?apiKey=1&x-auth-token=2&page=3')).toBe('http://host.example:8080/sse?apiKey=***&x-auth-token=***&page=3');
    expect(redactUrl('https://host.example/mcp')).toBe('https://host.example/mcp');
  });
});

describe('over TLS', () => {
  let server: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    server = await listeningFixture('http-only.mjs', { PORT: String(port), TLS: '1' });
  });
  afterAll(() => server.kill());

  it('a certificate of an unknown authority: said as untrusted, with NODE_EXTRA_CA_CERTS; trusted with it', async () => {
    const untrusted = await cli(['compile', '--url', `https://127.0.0.1:${port}/mcp`]);
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toContain(`The TLS certificate of https://127.0.0.1:${port}/mcp is not trusted: it is signed by a certificate authority Node does not know`);
    expect(untrusted.stderr).toContain('What to do: Make Node trust the certificate: set NODE_EXTRA_CA_CERTS');
    expect(untrusted.stderr).not.toContain('Start the server');
    const trusted = await cli(['compile', '--url', `https://127.0.0.1:${port}/mcp`, '--format', 'json', '--quiet'], { env: { NODE_EXTRA_CA_CERTS: `${ROOT}/test/fixtures/tls/ca.pem` } });
    expect(trusted.stderr).toBe('');
    expect(JSON.parse(trusted.stdout).server.name).toBe('http-only');
  });

  it('a certificate for another host name: said as such', async () => {
    // The certificate names localhost and 127.0.0.1; on Linux, 127.0.0.2 is this machine too.
    const otherPort = await freePort();
    const other = await listeningFixture('http-only.mjs', { PORT: String(otherPort), HOST: '127.0.0.2', TLS: '1' });
    try {
      const result = await cli(['compile', '--url', `https://127.0.0.2:${otherPort}/mcp`], { env: { NODE_EXTRA_CA_CERTS: `${ROOT}/test/fixtures/tls/ca.pem` } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`The TLS certificate of https://127.0.0.2:${otherPort}/mcp is not trusted: it was not issued for this host name (ERR_TLS_CERT_ALTNAME_INVALID).`);
    } finally {
      other.kill();
    }
  });

  it('https:// to a port that speaks plain HTTP: the http:// URL to use', async () => {
    const plainPort = await freePort();
    const plain = await listeningFixture('http-only.mjs', { PORT: String(plainPort) });
    try {
      const result = await cli(['compile', '--url', `https://127.0.0.1:${plainPort}/mcp`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`https://127.0.0.1:${plainPort}/mcp does not speak TLS (HTTPS) on that port`);
      expect(result.stderr).toContain(`What to do: Reach it over plain HTTP: --url http://127.0.0.1:${plainPort}/mcp`);
    } finally {
      plain.kill();
    }
  });
});

describe('a host name that does not resolve', () => {
  it('is said as such, with the name to check rather than a server to start', async () => {
    // .invalid never resolves (RFC 2606).
    const result = await cli(['compile', '--url', 'http://mcp.invalid/mcp', '--timeout', '10']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Could not connect to http:\/\/mcp\.invalid\/mcp: the host name does not resolve \((ENOTFOUND|EAI_AGAIN)\)\./);
    expect(result.stderr).toContain('What to do: Check the host name in --url');
    expect(result.stderr).not.toContain('Start the server');
  });
});
