/** The Action's file rules: regular files inside the workspace, outputs also in RUNNER_TEMP, never through a link. */
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { confine, readWorkspaceFile, writeOutputFile, type FileRoots } from '../../src/github/io/paths.js';

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'mcg-paths-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A workspace and a RUNNER_TEMP, the workspace also reachable through a link (as /tmp can be). */
function place(): { roots: FileRoots; workspace: string; temp: string; outside: string; linkedWorkspace: string } {
  const dir = mkdtempSync(join(scratch, 'case-'));
  const workspace = join(dir, 'ws');
  const temp = join(dir, 'temp');
  const outside = join(dir, 'outside');
  for (const d of [workspace, temp, outside]) mkdirSync(d);
  writeFileSync(join(outside, 'secret.txt'), 'ssh-rsa AAAA the runner key');
  const linkedWorkspace = join(dir, 'ws-link');
  symlinkSync(workspace, linkedWorkspace);
  return { roots: { workspace: { path: linkedWorkspace, real: workspace }, temp: { path: temp, real: temp } }, workspace, temp, outside, linkedWorkspace };
}

describe('confine', () => {
  const roots = [{ path: '/ws', real: '/real/ws' }];

  test('a path inside a root, as given or resolved, gives its components; outside or escaping gives nothing', () => {
    expect(confine('/ws/a/b.json', roots)?.parts).toEqual(['a', 'b.json']);
    expect(confine('/real/ws/a/../c.json', roots)?.parts).toEqual(['c.json']);
    expect(confine('/ws/../etc/passwd', roots)).toBeUndefined();
    expect(confine('/wsx/a', roots)).toBeUndefined();
    expect(confine('/etc/passwd', roots)).toBeUndefined();
    expect(confine('/ws', roots)?.parts).toEqual([]);
  });
});

describe('reading', () => {
  test('a regular file inside the workspace is read; a missing one is null', async () => {
    const { roots, workspace, linkedWorkspace } = place();
    mkdirSync(join(workspace, 'pkg'));
    writeFileSync(join(workspace, 'pkg', 'lock.json'), '{}');
    expect(await readWorkspaceFile(join(linkedWorkspace, 'pkg', 'lock.json'), roots, 'the lockfile')).toBe('{}');
    expect(await readWorkspaceFile(join(workspace, 'pkg', 'lock.json'), roots, 'the lockfile')).toBe('{}');
    expect(await readWorkspaceFile(join(workspace, 'pkg', 'none.json'), roots, 'the lockfile')).toBeNull();
    expect(await readWorkspaceFile(join(workspace, 'nodir', 'none.json'), roots, 'the lockfile')).toBeNull();
  });

  test('a symbolic link anywhere on the path is refused, naming the link', async () => {
    const { roots, workspace, outside } = place();
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'lock.json'));
    symlinkSync(outside, join(workspace, 'pkg'));
    // Even a link that stays inside the workspace: nothing is followed.
    writeFileSync(join(workspace, 'real.json'), '{}');
    symlinkSync(join(workspace, 'real.json'), join(workspace, 'inside.json'));
    await expect(readWorkspaceFile(join(workspace, 'lock.json'), roots, 'the lockfile')).rejects.toThrow(
      `Refusing to read the lockfile ${join(workspace, 'lock.json')}: ${join(roots.workspace.path, 'lock.json')} is a symbolic link`,
    );
    await expect(readWorkspaceFile(join(workspace, 'pkg', 'secret.txt'), roots, 'the config file')).rejects.toThrow(`${join(roots.workspace.path, 'pkg')} is a symbolic link`);
    await expect(readWorkspaceFile(join(workspace, 'inside.json'), roots, 'the lockfile')).rejects.toThrow('is a symbolic link');
  });

  test('`..` out of the workspace, an absolute path elsewhere, a FIFO and a hard link are refused', async () => {
    const { roots, workspace, outside } = place();
    await expect(readWorkspaceFile(join(workspace, '..', 'outside', 'secret.txt'), roots, 'the dump')).rejects.toThrow('it is outside the workspace');
    await expect(readWorkspaceFile(join(outside, 'secret.txt'), roots, 'the dump')).rejects.toThrow('it is outside the workspace');
    execFileSync('mkfifo', [join(workspace, 'fifo.json')]);
    await expect(readWorkspaceFile(join(workspace, 'fifo.json'), roots, 'the lockfile')).rejects.toThrow('it is not a regular file');
    linkSync(join(outside, 'secret.txt'), join(workspace, 'hard.json'));
    await expect(readWorkspaceFile(join(workspace, 'hard.json'), roots, 'the lockfile')).rejects.toThrow('it has other hard links');
  });
});

describe('writing', () => {
  test('writes inside the workspace and RUNNER_TEMP, creating directories, replacing what was there', async () => {
    const { roots, workspace, temp } = place();
    await writeOutputFile(join(workspace, 'out', 'deep', 'artifact.json'), 'one', roots, 'the delta artifact');
    await writeOutputFile(join(workspace, 'out', 'deep', 'artifact.json'), 'two', roots, 'the delta artifact');
    await writeOutputFile(join(temp, 'mcp-contract-guard', 'report.md'), '# r', roots, 'the report');
    expect(readFileSync(join(workspace, 'out', 'deep', 'artifact.json'), 'utf8')).toBe('two');
    expect(readFileSync(join(temp, 'mcp-contract-guard', 'report.md'), 'utf8')).toBe('# r');
  });

  test('never through a link (file or directory), never outside, never over a hard-linked file', async () => {
    const { roots, workspace, outside } = place();
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'contract-deltas.json'));
    symlinkSync(outside, join(workspace, 'reports'));
    await expect(writeOutputFile(join(workspace, 'contract-deltas.json'), 'x', roots, 'the delta artifact')).rejects.toThrow(
      `Refusing to write the delta artifact to ${join(workspace, 'contract-deltas.json')}: ${join(roots.workspace.path, 'contract-deltas.json')} is a symbolic link`,
    );
    await expect(writeOutputFile(join(workspace, 'reports', 'x.sarif'), 'x', roots, 'the SARIF file')).rejects.toThrow('reports is a symbolic link');
    await expect(writeOutputFile(join(outside, 'x.json'), 'x', roots, 'the review file')).rejects.toThrow('the Action writes only inside the workspace');
    await expect(writeOutputFile(join(workspace, '..', 'outside', 'x.json'), 'x', roots, 'the review file')).rejects.toThrow('the Action writes only inside the workspace');
    mkdirSync(join(workspace, 'dir.json'));
    await expect(writeOutputFile(join(workspace, 'dir.json'), 'x', roots, 'the review file')).rejects.toThrow('exists and is not a regular file');
    // A hard link to a file outside: replaced by a new file, the outside file untouched.
    linkSync(join(outside, 'secret.txt'), join(workspace, 'hard.json'));
    await writeOutputFile(join(workspace, 'hard.json'), 'artifact', roots, 'the delta artifact');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('ssh-rsa AAAA the runner key');
    expect(readFileSync(join(workspace, 'hard.json'), 'utf8')).toBe('artifact');
  });
});
