import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');

it('the public API type-checks against the MCP SDK types (fixtures/api-types.ts)', async () => {
  mkdirSync(join(repo, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(repo, '.tmp', 'api-types-'));
  try {
    const tsconfig = join(dir, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: join(repo, 'tsconfig.json'),
        compilerOptions: { noEmit: true, rootDir: repo },
        files: [join(repo, 'test/runtime/fixtures/api-types.ts')],
        include: [],
      }),
    );
    let output = '';
    try {
      // Asynchronously: a compile that takes a minute on a busy machine must not stall the test worker.
      await promisify(execFile)(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { cwd: repo, encoding: 'utf8' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    // Only errors in the runtime or the fixture count: others' folders are compiled transitively never.
    expect(output).toBe('');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
