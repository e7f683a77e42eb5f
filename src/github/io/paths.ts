/**
 * The files the Action reads and writes. A pull request controls the checkout: it can commit a
 * symbolic link (to ~/.ssh, to the runner's credentials, to /etc) or give its config a path
 * with `..`, and its server runs before the outputs are written. So the Action reads only
 * regular files inside the workspace, writes only inside the workspace or RUNNER_TEMP, never
 * through a symbolic link, and a refusal says which path and why.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UserError } from '../../errors.js';
import { decodedText } from '../../files.js';

/** A root the Action may use, as given (GITHUB_WORKSPACE) and with its symbolic links resolved. */
export interface Root {
  path: string;
  real: string;
}

/** Where files may be: reads from the workspace; writes there or in RUNNER_TEMP. */
export interface FileRoots {
  workspace: Root;
  temp: Root;
}

/** Larger than any real lockfile, config or dump; a bound on what a pull request can make the Action hold. */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/**
 * The root that holds `path` and the path's components below it, or undefined when `path`
 * is outside every root (a `..` escape or an absolute path elsewhere). Pure: no file system.
 */
export function confine(path: string, roots: Root[]): { root: Root; parts: string[] } | undefined {
  const absolute = resolve(path);
  for (const root of roots) {
    for (const base of [root.path, root.real]) {
      const rel = relative(base, absolute);
      if (rel === '') return { root, parts: [] };
      if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) continue;
      return { root, parts: rel.split(sep) };
    }
  }
  return undefined;
}

/**
 * The text of a regular file inside the workspace, or null when it does not exist. Refuses a
 * path outside the workspace, a symbolic link anywhere below the workspace, anything that is
 * not a regular file (a FIFO would block the read forever), a file with other hard links (it
 * could be a file outside the workspace under another name) and a file over MAX_READ_BYTES.
 */
export async function readWorkspaceFile(path: string, roots: FileRoots, what: string): Promise<string | null> {
  const refuse = (why: string) => new UserError(`Refusing to read ${what} ${path}: ${why}.`);
  const place = confine(path, [roots.workspace]);
  if (!place) throw refuse(`it is outside the workspace (${roots.workspace.path}); the Action reads only files of the checkout`);
  const walked = await walk(place.root.real, place.parts, false);
  if (walked.kind === 'symlink') throw refuse(`${shown(place.root, place.parts, walked.at)} is a symbolic link; the Action never follows one (a pull request could point it at any file on the runner)`);
  if (walked.kind === 'missing') return null;
  const full = join(place.root.real, ...place.parts);
  let handle;
  try {
    handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    // Changed since it was looked at: gone, or replaced by a link.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw refuse('it is a symbolic link; the Action never follows one');
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw refuse('it is not a regular file');
    if (stats.nlink > 1) throw refuse('it has other hard links, so it may be a file outside the workspace under another name');
    if (stats.size > MAX_READ_BYTES) throw refuse(`it is ${stats.size} bytes, over the ${MAX_READ_BYTES}-byte limit`);
    return decodedText(await handle.readFile());
  } finally {
    await handle.close();
  }
}

/**
 * Write `text` to a file inside the workspace or RUNNER_TEMP, creating missing directories.
 * Refuses a path outside both, and a symbolic link anywhere below the root (the final name
 * included). The text goes to a fresh file that then replaces the target, so a hard link
 * planted at the target is replaced, never written through.
 */
export async function writeOutputFile(path: string, text: string, roots: FileRoots, what: string): Promise<void> {
  const refuse = (why: string) => new UserError(`Refusing to write ${what} to ${path}: ${why}.`);
  const place = confine(path, [roots.workspace, roots.temp]);
  if (!place || place.parts.length === 0) throw refuse(`the Action writes only inside the workspace (${roots.workspace.path}) or RUNNER_TEMP (${roots.temp.path})`);
  const walked = await walk(place.root.real, place.parts, true);
  if (walked.kind === 'symlink') throw refuse(`${shown(place.root, place.parts, walked.at)} is a symbolic link; the Action never writes through one (a pull request could point it at any file on the runner)`);
  if (walked.kind === 'other') throw refuse(`${shown(place.root, place.parts, walked.at)} exists and is not a regular file`);
  const full = join(place.root.real, ...place.parts);
  const scratch = `${full}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(scratch, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  await rename(scratch, full).catch(async (error: unknown) => {
    await unlink(scratch).catch(() => undefined);
    throw error;
  });
}

type Walk = { kind: 'ok' } | { kind: 'missing' } | { kind: 'symlink'; at: number } | { kind: 'other'; at: number };

/**
 * Look at each component below `root` without following links. For a write, missing
 * directories are created (one level at a time, so none is created through a link) and the
 * final component may be missing; for a read, a missing component means a missing file.
 */
async function walk(root: string, parts: string[], forWrite: boolean): Promise<Walk> {
  let current = root;
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i] as string);
    const last = i === parts.length - 1;
    const stats = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (stats?.isSymbolicLink()) return { kind: 'symlink', at: i };
    if (!stats) {
      if (!forWrite) return { kind: 'missing' };
      if (last) return { kind: 'ok' };
      await mkdir(current);
      continue;
    }
    if (!last && !stats.isDirectory()) return forWrite ? { kind: 'other', at: i } : { kind: 'missing' };
    if (last && forWrite && !stats.isFile()) return { kind: 'other', at: i };
  }
  return { kind: 'ok' };
}

/** The refused component, under the root as the runner names it. */
function shown(root: Root, parts: string[], at: number): string {
  return join(root.path, ...parts.slice(0, at + 1));
}
