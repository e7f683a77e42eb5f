/**
 * The bundled example, given what a newcomer may give it: a delta artifact that was never
 * written, or one that is not an artifact. The server stops before serving, in one paragraph
 * that names the file, the problem and the command that writes it; never a stack trace. And the
 * agent stand-in (examples/call-tool.mjs) says what went wrong the same way.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { example, ROOT } from './helpers/processes.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'mcg-examples-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function node(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: ROOT, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const WRITE_IT = '  npx mcp-contract-guard check --command "node examples/inventory/v2.mjs" --lockfile examples/inventory/mcp-contracts.lock.json --artifact';

describe('the example server with --deltas', () => {
  it('a missing artifact: one paragraph naming the file and the command that writes it, exit 2', async () => {
    const result = await node(example('v2'), '--deltas', 'contract-deltas.json');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'Cannot start with --deltas: Delta artifact contract-deltas.json: cannot be read (file not found).\n' +
        'The delta artifact is what `check` or `diff` writes with --artifact; for this example, from the repository root:\n' +
        `${WRITE_IT} contract-deltas.json\n`,
    );
  });

  it('a file that is not an artifact: the same, with what is wrong in it', async () => {
    const bad = join(scratch, 'deltas.json');
    writeFileSync(bad, '{"version": 1,');
    const result = await node(example('v2'), '--deltas', bad);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^Cannot start with --deltas: Delta artifact ${bad}: is not valid JSON \\(.+\\)\\.\\n`));
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('examples/call-tool.mjs', () => {
  it('a server that stops before it answers: its own message, then one line saying so, exit 2', async () => {
    const result = await node('examples/call-tool.mjs', 'create_order', '{"sku":"A-1","quantity":2}', '--', process.execPath, example('v2'), '--deltas', 'missing.json');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Cannot start with --deltas: Delta artifact missing.json: cannot be read (file not found).');
    expect(result.stderr).toMatch(/stopped before it answered: .*Connection closed\.\n$/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('arguments that are not JSON, or no server: the usage, exit 2', async () => {
    const notJson = await node('examples/call-tool.mjs', 'create_order', "{sku: 'A-1'}", '--', 'node', example('v2'));
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^The arguments are not JSON \(.+\)\.\nUsage: node examples\/call-tool\.mjs TOOL 'ARGUMENTS AS JSON' -- SERVER COMMAND…\n$/);
    const noServer = await node('examples/call-tool.mjs', 'create_order', '{}');
    expect(noServer).toMatchObject({ code: 2, stderr: "Usage: node examples/call-tool.mjs TOOL 'ARGUMENTS AS JSON' -- SERVER COMMAND…\n" });
  });
});
