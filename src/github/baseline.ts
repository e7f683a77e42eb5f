import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import type { GitHubApi } from './api.js';
import { UserError } from '../errors.js';
import { shortSha } from './markdown.js';
import { readWorkspaceFile, type FileRoots } from './paths.js';

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

/** The repository root of the checkout that holds the directory `dir`, or undefined outside git. */
export async function repoRootOf(dir: string): Promise<string | undefined> {
  try {
    return (await git(dir, ['rev-parse', '--show-toplevel'])).trim();
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
  // The file's directory may not exist in the checkout (a server the head moved or dropped).
  const root = await repoRootOf(await existingAncestor(dirname(options.path)));
  const rel = repoPath(root ?? options.workspace, options.path);
  if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) throw new UserError(`Refusing to read ${options.path} at ${shortSha(options.ref)}: it is outside the repository.`);
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

/** `path` itself when it exists, else its nearest ancestor that does. */
async function existingAncestor(path: string): Promise<string> {
  let current = path;
  while (!(await stat(current).then(() => true, () => false))) {
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}

/** Where the review reads one side's files: the checkout, or a commit (by ref). */
export interface Tree {
  /** For people: "the checkout", "abc1234". */
  describe: string;
  /** The text at `path` (absolute, inside the repository), or null when there is no such file. */
  read(path: string, what: string): Promise<string | null>;
}

/** The checkout, read only through the workspace's rules (no link, no escape). */
export function checkoutTree(roots: FileRoots): Tree {
  return { describe: 'the checkout', read: (path, what) => readWorkspaceFile(path, roots, what) };
}

/** The files as committed at `ref`, through git or the contents API; never the checkout. */
export function commitTree(ref: string, options: { workspace: string; api?: GitHubApi; log: (m: string) => void }): Tree {
  return {
    describe: shortSha(ref),
    read: async (path) => {
      const { text, via } = await readFileAtRef({ ...options, path, ref });
      const rel = repoPath(options.workspace, path);
      options.log(text === null ? `There is no ${rel} at ${shortSha(ref)} (asked ${via}).` : `Read ${rel} at ${shortSha(ref)} through ${via}.`);
      return text;
    },
  };
}
