import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/index.js';
import { CompileError, HealingFailedError, compileContracts, type ContractSource } from '../../src/compile/index.js';
import { ROOT, example, fixture, freePort, groupAlive, startHttpServer, timeoutForThisMachine } from '../helpers/processes.js';

const stdio = (command: string[], timeoutMs = 10_000): ContractSource => ({ kind: 'command', command, cwd: ROOT, timeoutMs });

async function failure(source: ContractSource): Promise<CompileError> {
  try {
    await compileContracts(source, { heal: false });
  } catch (error) {
    // Without healing the error still carries the diagnosis and the one attempt.
    if (error instanceof HealingFailedError) {
      expect(error.report.attempts).toHaveLength(1);
      return error;
    }
    throw error;
  }
  throw new Error('expected the capture to fail');
}

describe('capture over stdio', () => {
  it('captures every tool, prompt and resource of the example server as sent', async () => {
    const { contracts, warnings, origin } = await compileContracts(stdio([process.execPath, example('v1')]));
    expect(origin).toBe('server');
    expect(warnings).toEqual([]);
    expect(contracts.server.name).toBe('inventory');
    expect(Object.keys(contracts.tools).sort()).toEqual(['archive_order', 'create_order', 'delete_order', 'get_stock', 'list_orders']);
    expect(Object.keys(contracts.prompts)).toEqual(['order_summary']);
    expect(Object.keys(contracts.resources)).toEqual(['inventory://catalog']);
    const create = contracts.tools.create_order!;
    expect(create.dialects).toEqual({ inputSchema: 'http://json-schema.org/draft-07/schema#', outputSchema: 'http://json-schema.org/draft-07/schema#' });
    expect(create.contract.inputSchema).toMatchObject({
      type: 'object',
      required: ['quantity', 'sku'],
      properties: { priority: { type: 'string', enum: ['high', 'low', 'normal'] }, sku: { type: 'string', minLength: 1 } },
    });
    expect(create.contract.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(contracts.resources['inventory://catalog']!.contract.mimeType).toBe('application/json');
  });

  it('keeps shapes the SDK would reject, follows cursors, resolves recursive refs', async () => {
    const { contracts, warnings } = await compileContracts(stdio([process.execPath, fixture('raw-shapes.mjs')]));
    expect(Object.keys(contracts.tools)).toEqual(['bare', 'tree', 'pair']);
    expect(contracts.tools.bare!.contract.inputSchema).toEqual({});
    expect(contracts.tools.bare!.dialects).toEqual({ inputSchema: 'https://json-schema.org/draft/2020-12/schema' });
    expect(contracts.tools.tree!.contract['x-vendor']).toEqual({ owner: 'team-a' });
    expect(canonicalJson(contracts.tools.tree!.contract.inputSchema)).toContain('"$ref":"#/$defs/Node"');
    expect(contracts.tools.pair!.contract.inputSchema).toMatchObject({ properties: { xy: { prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } } });
    expect(contracts.prompts.explain!.contract.arguments).toEqual([{ name: 'depth', required: false }, { name: 'topic', required: true }]);
    expect(warnings).toEqual(['tool "bare" inputSchema does not declare "type": "object" as MCP requires; compiled as sent']);
  });

  it('speaks the stateless revision through server/discover, and drops list-level cache hints', async () => {
    const { contracts } = await compileContracts(stdio([process.execPath, fixture('stateless.mjs')]));
    expect(contracts.server.name).toBe('stateless');
    expect(contracts.tools.forecast!.contract.inputSchema).toEqual({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    expect(Object.keys(contracts.resources)).toEqual(['weather://stations']);
    expect(Object.keys(contracts.resourceTemplates)).toEqual(['weather://city/{name}']);
    expect(canonicalJson(contracts)).not.toMatch(/ttlMs|cacheScope|resultType/);
  });

  it('captures a published server installed from npm (server-everything)', async () => {
    const { contracts } = await compileContracts(stdio([process.execPath, `${ROOT}/node_modules/@modelcontextprotocol/server-everything/dist/index.js`, 'stdio'], 20_000));
    expect(Object.keys(contracts.tools)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect(contracts.tools.echo!.contract.inputSchema).toMatchObject({ type: 'object', required: ['message'], properties: { message: { type: 'string' } } });
    expect(Object.keys(contracts.prompts).length).toBeGreaterThan(0);
    expect(Object.keys(contracts.resources).length).toBeGreaterThan(0);
    expect(Object.keys(contracts.resourceTemplates).length).toBeGreaterThan(0);
  });
});

describe('capture over streamable HTTP', () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    server = await startHttpServer(example('v1'));
  });
  afterAll(() => server.stop());

  it('captures the same contracts as over stdio', async () => {
    const overHttp = await compileContracts({ kind: 'url', url: server.url, timeoutMs: 10_000 });
    const overStdio = await compileContracts(stdio([process.execPath, example('v1')]));
    expect(canonicalJson(overHttp.contracts)).toBe(canonicalJson(overStdio.contracts));
  });
});

describe('the stateless revision over streamable HTTP', () => {
  it('discovers, sends the version and method headers, reads SSE answers, drops cache hints', async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [fixture('stateless-http.mjs')], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      await new Promise((resolve) => server.stderr!.once('data', resolve));
      const { contracts } = await compileContracts({ kind: 'url', url: `http://127.0.0.1:${port}/mcp`, timeoutMs: 5000 });
      expect(contracts.server.name).toBe('stateless-http');
      expect(Object.keys(contracts.tools)).toEqual(['forecast']);
      expect(canonicalJson(contracts)).not.toMatch(/ttlMs|cacheScope|resultType/);
    } finally {
      server.kill();
    }
  });
});

describe('capture failures', () => {
  it('command not found', async () => {
    const error = await failure(stdio(['no-such-mcp-server-binary']));
    expect(error.diagnosis.category).toBe('command-not-found');
    expect(error.message).toContain('The command "no-such-mcp-server-binary" was not found on PATH.');
    expect(error.exitCode).toBe(2);
  });

  it('server exits before initialize, with its stderr', async () => {
    const error = await failure(stdio([process.execPath, fixture('exits-early.mjs')]));
    expect(error.diagnosis.category).toBe('crashed');
    expect(error.message).toContain('exited with code 3 before answering initialize');
    expect(error.message).toContain('fatal: could not open config.yaml');
  });

  it('server prints non-JSON on stdout', async () => {
    // It must have started and printed before the timeout: a timeout as long as this machine needs now.
    const error = await failure(stdio([process.execPath, fixture('non-json-stdout.mjs')], await timeoutForThisMachine(1000)));
    expect(error.diagnosis.category).toBe('transport-mismatch');
    expect(error.message).toContain('"Welcome to the weather server v2!"');
    expect(groupAlive(error.evidence.pid!)).toBe(false);
  });

  it('server never answers: the timeout is honoured and the process stopped', async () => {
    // How long it waits is budget.test.ts's subject (on a fake clock): here, that it ends and cleans up.
    const error = await failure(stdio([process.execPath, fixture('never-answers.mjs')], 800));
    expect(error.diagnosis.category).toBe('timeout');
    expect(error.message).toContain('did not answer initialize within 0.8 s');
    expect(groupAlive(error.evidence.pid!)).toBe(false);
  });

  it('a repeated cursor stops the capture', async () => {
    const error = await failure(stdio([process.execPath, fixture('repeated-cursor.mjs')]));
    expect(error.message).toContain('tools/list returned the cursor "page-2" a second time (page 2): its pagination loops');
    expect(groupAlive(error.evidence.pid!)).toBe(false);
  });

  it('pagination that never ends stops past 10,000 entries', async () => {
    const error = await failure(stdio([process.execPath, fixture('endless-pages.mjs')]));
    expect(error.message).toContain('tools/list returned more than 10,000 tools; capture stopped');
    expect(groupAlive(error.evidence.pid!)).toBe(false);
  });

  it('nothing listening at a URL', async () => {
    const error = await failure({ kind: 'url', url: `http://127.0.0.1:${await freePort()}/mcp`, timeoutMs: 2000 });
    expect(error.diagnosis.category).toBe('connection-refused');
    expect(error.message).toContain('nothing is listening there');
  });
});
