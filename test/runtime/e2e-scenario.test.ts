/**
 * The acceptance scenario of issue 5, end to end with real processes:
 * lock example v1 → lock v2 (the "change") → `diff --artifact` → start v2 with `--deltas` (its
 * McpServer wrapped by `withSelfHealing`) → a real SDK Client sends v1-shaped arguments and gets
 * a `<contract_awareness>` block naming the new required field → `callWithSelfHealing`, with a
 * scripted `correct` that reads only the error's field lines, fixes the call and the retry succeeds.
 *
 * Runs the package as built (the test run's global setup builds it): its bin, as package.json
 * names it, and its runtime (lib/bundle/runtime.js, which the example imports as
 * 'mcp-contract-guard/runtime'), with examples/inventory/v{1,2}.mjs.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { callWithSelfHealing, loadDeltaMap } from '../../src/runtime/index.js';
import { PACKAGE_BIN } from '../helpers/processes.js';
import { correctFromFieldLines } from './helpers.js';

const repo = resolve(import.meta.dirname, '../..');
const cli = PACKAGE_BIN;
const v1 = join(repo, 'examples/inventory/v1.mjs');
const v2 = join(repo, 'examples/inventory/v2.mjs');
const run = promisify(execFile);

/** Args v1's `create_order` accepted: no `currency`, which v2 requires. */
const V1_ARGS = { sku: 'A-1', quantity: 2 };

let work: string | undefined;
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

async function cliRun(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { cwd: repo });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function startClient(script: string, ...args: string[]): Promise<Client> {
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [script, ...args], cwd: repo, stderr: 'pipe' }));
  clients.push(client);
  return client;
}

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('\n');
}

describe('acceptance: lock v1, change to v2, artifact, self-healing server, self-correcting client', () => {
  it('runs the whole scenario', async () => {
    mkdirSync(join(repo, '.tmp'), { recursive: true });
    work = mkdtempSync(join(repo, '.tmp', 'e2e-'));
    const v1Lock = join(work, 'v1.lock.json');
    const v2Lock = join(work, 'v2.lock.json');
    const artifact = join(work, 'deltas.json');

    // 1. Lock v1, then the changed server (v2).
    for (const [script, lockfile] of [[v1, v1Lock], [v2, v2Lock]] as const) {
      const locked = await cliRun('lock', '--command', `node ${script}`, '--lockfile', lockfile);
      expect(locked.code, locked.stderr).toBe(0);
    }

    // 2. The CLI writes the delta artifact; the runtime's loader accepts it.
    const diffed = await cliRun('diff', v1Lock, v2Lock, '--artifact', artifact);
    expect([0, 1], diffed.stderr).toContain(diffed.code);
    const deltas = loadDeltaMap(artifact);
    const createOrder = deltas.get('create_order');
    expect(createOrder?.maxSeverity).toBe('BREAKING');
    expect(createOrder?.deltas.some((d) => d.severity === 'BREAKING' && d.field.includes('currency'))).toBe(true);

    // 3. The v1-shaped arguments really are valid for v1.
    const v1Client = await startClient(v1);
    expect((await v1Client.callTool({ name: 'create_order', arguments: V1_ARGS })).isError).not.toBe(true);

    // 4. v2 with the artifact answers them with the enriched error.
    const client = await startClient(v2, '--deltas', artifact);
    const rejected = await client.callTool({ name: 'create_order', arguments: V1_ARGS });
    expect(rejected.isError).toBe(true);
    const errorText = textOf(rejected);
    expect(errorText).toMatch(/^<validation_error tool="create_order">/);
    expect(errorText).toMatch(/<field name="currency">Missing\. Expected: string, one of "[A-Z]{3}"/);
    const block = /<contract_awareness>[\s\S]*<\/contract_awareness>/.exec(errorText)?.[0] ?? '';
    expect(block).toMatch(/<delta severity="BREAKING" [^>]*field="currency"/);

    // Another tool's v1-shaped call (an enum value v2 removed) is enriched the same way.
    const listed = textOf(await client.callTool({ name: 'list_orders', arguments: { status: 'cancelled' } }));
    expect(listed).toMatch(/<contract_awareness>[\s\S]*field="status"/);

    // A call to the tool under its v1 name is told the new name.
    const renamed = await client.callTool({ name: 'get_stock', arguments: { sku: 'A-1' } });
    expect(renamed.isError).toBe(true);
    expect(textOf(renamed)).toContain('<recovery>Call "check_stock" instead.</recovery>');

    // 5. The agent heals the call from the error text alone; the second call succeeds.
    const correct = vi.fn(correctFromFieldLines);
    const healed = await callWithSelfHealing(client, 'create_order', V1_ARGS, { correct });
    expect(healed.isError).not.toBe(true);
    expect(correct).toHaveBeenCalledTimes(1);
    expect(correct.mock.calls[0]?.[0].errorText).toBe(errorText);
    const fixedArgs = correct.mock.results[0]?.value as Record<string, unknown>;
    expect(fixedArgs).toMatchObject({ ...V1_ARGS, currency: expect.any(String) });
    expect(textOf(healed)).toContain(String(fixedArgs.currency));
  });
});
