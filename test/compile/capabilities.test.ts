/**
 * The client capabilities a capture declares, and the answers it then gives to the server's own
 * requests: against the published reference server (which hides tools from clients that cannot
 * sample, elicit or share roots) and a fixture that asks everything a server may ask.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureServer, declaringAsRecorded } from '../../src/compile/index.js';
import { cli } from '../helpers/cli.js';
import { VERSION } from '../../src/version.js';
import { ROOT, fixture, freePort } from '../helpers/processes.js';

const EVERYTHING = `node ${ROOT}/node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
/** The tools server-everything offers only to clients that declare roots, sampling or elicitation. */
const GATED = ['get-roots-list', 'trigger-elicitation-request', 'trigger-sampling-request', 'trigger-url-elicitation'];

async function toolsOf(args: string[]): Promise<string[]> {
  const result = await cli(['compile', ...args, '--format', 'json', '--quiet', '--timeout', '20']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return Object.keys(JSON.parse(result.stdout).tools);
}

describe('server-everything', () => {
  it('declares roots, sampling and elicitation by default: all 17 tools; with "none", the 13 it shows anyone', async () => {
    const all = await toolsOf(['--command', `${EVERYTHING} stdio`]);
    expect(all).toHaveLength(17);
    expect(all).toEqual(expect.arrayContaining(GATED));
    const bare = await toolsOf(['--command', `${EVERYTHING} stdio`, '--capabilities', 'none']);
    expect(bare).toHaveLength(13);
    expect(bare.filter((tool) => GATED.includes(tool))).toEqual([]);
    expect(all).toEqual(expect.arrayContaining(bare));
  });

  it('over streamable HTTP too', async () => {
    const port = await freePort();
    const tools = await toolsOf(['--command', `${EVERYTHING} streamableHttp`, '--env', `PORT=${port}`, '--url', `http://127.0.0.1:${port}/mcp`]);
    expect(tools).toEqual(expect.arrayContaining(GATED));
  });

  it('a config declares what its "capabilities" list', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcg-caps-'));
    writeFileSync(join(dir, 'mcp-contract-guard.config.json'), JSON.stringify({ servers: { everything: { command: `${EVERYTHING} stdio`, capabilities: ['roots'] } } }));
    const result = await cli(['compile', '--format', 'json', '--quiet'], { cwd: dir });
    expect(result.code).toBe(0);
    const tools = Object.keys(JSON.parse(result.stdout).tools);
    expect(tools).toContain('get-roots-list');
    expect(tools).not.toContain('trigger-sampling-request');
  });
});

describe("the server's requests", () => {
  const report = async (args: string[]) => {
    const result = await cli(['compile', '--command', `node ${fixture('asks-client.mjs')}`, ...args, '--format', 'json', '--quiet', '--timeout', '5']);
    expect(result.stderr).toBe('');
    return JSON.parse(JSON.parse(result.stdout).tools.client.contract.description as string);
  };

  it('declared: ping, an empty roots list, a sampling refusal, a declined elicitation; never a hang', async () => {
    expect(await report([])).toEqual({
      declared: { elicitation: { form: {}, url: {} }, roots: {}, sampling: {} },
      answers: {
        ping: { result: {} },
        'roots/list': { result: { roots: [] } },
        'sampling/createMessage': { error: -1 },
        'elicitation/create': { result: { action: 'decline' } },
      },
    });
  });

  it('with none declared: ping, and "method not found" for the rest', async () => {
    expect(await report(['--capabilities', 'none'])).toEqual({
      declared: {},
      answers: {
        ping: { result: {} },
        'roots/list': { error: -32601 },
        'sampling/createMessage': { error: -32601 },
        'elicitation/create': { error: -32601 },
      },
    });
  });

  it('an unknown capability is refused, naming the ones there are', async () => {
    const result = await cli(['compile', '--command', `node ${fixture('asks-client.mjs')}`, '--capabilities', 'roots,telepathy']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--capabilities: "telepathy" is not a client capability we can declare; the capabilities are elicitation, roots, sampling (or "none").');
  });
});

describe('the raw capture', () => {
  it('records what was declared, sorted, for the lockfile', async () => {
    const source = { kind: 'command' as const, command: [process.execPath, fixture('asks-client.mjs')], cwd: ROOT, timeoutMs: 5000 };
    expect((await captureServer(source)).capture.clientCapabilities).toEqual(['elicitation', 'roots', 'sampling']);
    expect((await captureServer({ ...source, clientCapabilities: ['sampling', 'roots'] })).capture.clientCapabilities).toEqual(['roots', 'sampling']);
    expect((await captureServer({ ...source, clientCapabilities: [] })).capture.clientCapabilities).toEqual([]);
  });
});

describe('declaring what a lockfile was captured with', () => {
  const command = { kind: 'command' as const, command: ['node', 'server.js'], timeoutMs: 1_000 };

  it('declares the recorded capabilities when the source says nothing, leaving out names it cannot declare', () => {
    expect(declaringAsRecorded(command, ['sampling', 'roots', 'telepathy']).source.clientCapabilities).toEqual(['roots', 'sampling']);
    expect(declaringAsRecorded(command, []).source.clientCapabilities).toEqual([]);
    // Format 1 lockfiles record nothing: the default (all) stays.
    expect(declaringAsRecorded(command, undefined).source.clientCapabilities).toBeUndefined();
  });

  it('keeps what the source declares, and says when it differs from the record', () => {
    const declared = { ...command, clientCapabilities: ['sampling' as const] };
    expect(declaringAsRecorded(declared, ['sampling'])).toEqual({ source: declared });
    expect(declaringAsRecorded(declared, ['roots', 'sampling'])).toEqual({ source: declared, mismatch: { recorded: ['roots', 'sampling'], declared: ['sampling'] } });
  });
});

describe('who we say we are', () => {
  it("initialize names this package and its version as the client (a server may answer by the client's version)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcg-client-info-'));
    // A server that names itself after the client it was started by.
    const server = join(dir, 'mirror.mjs');
    writeFileSync(
      server,
      `import { createInterface } from 'node:readline';
for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.id === undefined) continue;
  const result = message.method === 'initialize'
    ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: message.params.clientInfo }
    : message.method === 'tools/list' ? { tools: [] } : {};
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }) + '\\n');
}
`,
    );
    const result = await cli(['compile', '--command', `node ${server}`, '--format', 'json', '--quiet', '--timeout', '10']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).server).toEqual({ name: 'mcp-contract-guard', version: VERSION });
  });
});
