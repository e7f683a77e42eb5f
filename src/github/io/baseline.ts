import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import type { GitHubApi } from './api.js';
import { UserError } from '../../errors.js';
import { shortSha } from '../text.js';
import { TamperedObjectError, git, readCommittedFile } from './git-objects.js';
import { readWorkspaceFile, type FileRoots } from './paths.js';

export interface FileAtRef {
  /** Null when the file does not exist at that ref (a new server, a new lockfile). */
  text: string | null;
  via: 'git' | 'contents API';
}

/** The repository root of the checkout that holds the directory `dir`, or undefined outside git. */
export async function repoRootOf(dir: string): Promise<string | undefined> {
  try {
    return (await git(dir, ['rev-parse', '--show-toplevel'])).toString('utf8').trim();
  } catch {
    return undefined;
  }
}

/** `path` relative to `root`, with forward slashes (what git and the contents API take). */
export function repoPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

/**
 * The text of `path` as committed at `ref`: from the local clone when it has that commit,
 * every object checked against its name (git-objects.ts), else from the contents API (a
 * shallow `actions/checkout` has only the head). A clone whose objects do not match their
 * names was tampered with: the API is asked instead, and the log says so; without a token the
 * read fails.
 */
export async function readFileAtRef(options: { path: string; ref: string; workspace: string; api?: GitHubApi; log: (m: string) => void; warn?: (m: string) => void }): Promise<FileAtRef> {
  // The file's directory may not exist in the checkout (a server the head moved or dropped).
  const root = await repoRootOf(await existingAncestor(dirname(options.path)));
  const rel = repoPath(root ?? options.workspace, options.path);
  if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) throw new UserError(`Refusing to read ${options.path} at ${shortSha(options.ref)}: it is outside the repository.`);
  let tampered: string | undefined;
  if (root !== undefined) {
    try {
      const read = await readCommittedFile(root, options.ref, rel);
      if ('text' in read) return { text: read.text, via: 'git' };
      options.log(`${capitalized(read.absent)} (a shallow clone?): reading ${rel} through the contents API.`);
    } catch (error) {
      if (!(error instanceof TamperedObjectError)) throw error;
      tampered = `The clone does not hold ${rel} at ${shortSha(options.ref)} as committed: ${error.message}. Something rewrote the repository (code of this pull request, in an earlier step or its server)`;
    }
  }
  if (!options.api) {
    if (tampered !== undefined) throw new UserError(`${tampered}; without a github-token the contents API cannot be asked instead.`);
    throw new Error(`Cannot read ${rel} at ${options.ref}: the commit is not in the checkout and there is no token for the contents API (fetch it with actions/checkout's fetch-depth: 0).`);
  }
  if (tampered !== undefined) (options.warn ?? options.log)(`${tampered}: reading it through the contents API instead.`);
  return { text: await options.api.fileAtRef(rel, options.ref), via: 'contents API' };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
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

/** The files as committed at `ref`, through git (every object checked) or the contents API; never the checkout. */
export function commitTree(ref: string, options: { workspace: string; api?: GitHubApi; log: (m: string) => void; warn?: (m: string) => void }): Tree {
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
