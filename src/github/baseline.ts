import { execFile } from 'node:child_process';
import { dirname, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import type { GitHubApi } from './api.js';

const run = promisify(execFile);

export interface FileAtRef {
  /** Null when the file does not exist at that ref (a new server, a new lockfile). */
  text: string | null;
  via: 'git' | 'contents API';
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' });
  return stdout;
}

/** The repository root of the checkout that holds `path`, or undefined outside git. */
export async function repoRootOf(path: string): Promise<string | undefined> {
  try {
    return (await git(dirname(path), ['rev-parse', '--show-toplevel'])).trim();
  } catch {
    return undefined;
  }
}

/** `path` relative to `root`, with forward slashes (what git and the contents API take). */
export function repoPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

/**
 * The text of `path` as committed at `ref`: from the local clone when it has that commit
 * (`git show`), else from the contents API (a shallow `actions/checkout` has only the head).
 */
export async function readFileAtRef(options: { path: string; ref: string; workspace: string; api?: GitHubApi; log: (m: string) => void }): Promise<FileAtRef> {
  const root = await repoRootOf(options.path);
  const rel = repoPath(root ?? options.workspace, options.path);
  if (root !== undefined) {
    const hasCommit = await git(root, ['cat-file', '-e', `${options.ref}^{commit}`]).then(
      () => true,
      () => false,
    );
    if (hasCommit) {
      try {
        return { text: await git(root, ['show', `${options.ref}:${rel}`]), via: 'git' };
      } catch (error) {
        const stderr = String((error as { stderr?: unknown }).stderr ?? '');
        if (/does not exist in|exists on disk, but not in/.test(stderr)) return { text: null, via: 'git' };
        options.log(`git show ${options.ref}:${rel} failed (${stderr.trim() || (error as Error).message}); asking the contents API instead.`);
      }
    } else {
      options.log(`The checkout does not have ${options.ref} (a shallow clone?): reading ${rel} through the contents API.`);
    }
  }
  if (!options.api) throw new Error(`Cannot read ${rel} at ${options.ref}: the commit is not in the checkout and there is no token for the contents API (fetch it with actions/checkout's fetch-depth: 0).`);
  return { text: await options.api.fileAtRef(rel, options.ref), via: 'contents API' };
}
