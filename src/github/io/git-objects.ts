/**
 * Reading a file as committed, from a clone that code of the pull request may have written to.
 * A pull request's code runs as the runner's user before the review (`npm ci`, a build) and
 * during it (the server): it can add a replace ref (`refs/replace/<base>` makes git show
 * another commit in its place) and write objects under `.git/objects` (git does not check a
 * loose or packed object against its name when it reads it). So git is asked with replacements
 * off, and every object on the way (the commit, each tree, the blob) is hashed here and checked
 * against the name that led to it: what is read is what the SHA names, or the read fails.
 *
 * A name that is not a full SHA (a tag or branch given as `baseline-ref`) is resolved by the
 * clone's refs, which the same code could have moved: SECURITY.md says so.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** The largest object read: far above any config or lockfile the review reads. */
const MAX_OBJECT_BYTES = 256 * 1024 * 1024;
/** Deeper paths than this are not a lockfile's. */
const MAX_PATH_DEPTH = 64;

/** An object of the clone does not hash to its name: something rewrote the repository. */
export class TamperedObjectError extends Error {}

type ObjectType = 'commit' | 'tree' | 'blob';
type Format = { name: 'sha1' | 'sha256'; bytes: number };

/**
 * git with replacements off, without the hooks or file-system monitor a repository's config
 * could make it run, in an environment that holds none of the step's secrets (HOME stays: its
 * config may name the checkout a safe directory).
 */
export async function git(root: string, args: string[]): Promise<Buffer> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_NO_REPLACE_OBJECTS: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  for (const name of ['HOME', 'XDG_CONFIG_HOME', 'SYSTEMROOT']) if (process.env[name] !== undefined) env[name] = process.env[name];
  const { stdout } = await exec('git', ['--no-replace-objects', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', ...args], {
    cwd: root,
    env,
    maxBuffer: MAX_OBJECT_BYTES,
    encoding: 'buffer',
  });
  return stdout;
}

/** The repository's hash: sha1, or sha256 for a repository made with --object-format=sha256. */
async function formatOf(root: string): Promise<Format> {
  const name = (await git(root, ['rev-parse', '--show-object-format']).catch(() => Buffer.from('sha1'))).toString('utf8').trim();
  return name === 'sha256' ? { name: 'sha256', bytes: 32 } : { name: 'sha1', bytes: 20 };
}

/** The object's content, checked against its name; undefined when the clone does not have it. */
async function verifiedObject(root: string, format: Format, id: string, type: ObjectType): Promise<Buffer | undefined> {
  const exists = await git(root, ['cat-file', '-e', id]).then(
    () => true,
    () => false,
  );
  if (!exists) return undefined;
  let content: Buffer;
  try {
    content = await git(root, ['cat-file', type, id]);
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new TamperedObjectError(`git cannot read ${id} as a ${type} (${stderr.split('\n')[0] || (error as Error).message})`);
  }
  const actual = createHash(format.name).update(`${type} ${content.length}\0`).update(content).digest('hex');
  if (actual !== id) throw new TamperedObjectError(`the object the clone holds as ${id} hashes to ${actual}: it is not the ${type} of that name`);
  return content;
}

export type CommitFile =
  /** The file's text (UTF-8), or null when the commit has no file at that path. */
  | { text: string | null }
  /** The clone does not have the commit (a shallow clone), or an object below it (a partial one). */
  | { absent: string };

/**
 * The text of `path` (relative to the repository root, with `/`) as committed at `commit`,
 * every object checked against its name. Throws TamperedObjectError when one does not match,
 * or when the path names something other than a regular file (a link, a submodule).
 */
export async function readCommittedFile(root: string, commit: string, path: string): Promise<CommitFile> {
  const format = await formatOf(root);
  const id = /^[0-9a-f]+$/.test(commit) && commit.length === format.bytes * 2 ? commit : await resolveName(root, commit);
  if (id === undefined) return { absent: `the clone has no commit named ${commit}` };
  const commitObject = await verifiedObject(root, format, id, 'commit');
  if (commitObject === undefined) return { absent: `the clone does not have the commit ${id}` };
  const treeLine = /^tree ([0-9a-f]+)$/m.exec(commitObject.subarray(0, Math.min(commitObject.length, 200)).toString('latin1'));
  if (!treeLine) throw new TamperedObjectError(`the commit ${id} names no tree`);
  let tree = treeLine[1] as string;
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.length === 0 || parts.length > MAX_PATH_DEPTH || parts.includes('..')) throw new TamperedObjectError(`"${path}" is not a path inside the repository`);
  for (const [i, part] of parts.entries()) {
    const content = await verifiedObject(root, format, tree, 'tree');
    if (content === undefined) return { absent: `the clone does not have the tree ${tree} of ${id}` };
    const entry = treeEntry(content, part, format);
    if (entry === undefined) return { text: null };
    const last = i === parts.length - 1;
    if (!last) {
      if (entry.mode !== '40000') return { text: null };
      tree = entry.id;
      continue;
    }
    if (entry.mode === '40000') return { text: null };
    if (entry.mode !== '100644' && entry.mode !== '100755') {
      throw new TamperedObjectError(`${path} at ${id.slice(0, 7)} is ${entry.mode === '120000' ? 'a symbolic link' : entry.mode === '160000' ? 'a submodule' : `an entry of mode ${entry.mode}`}, not a file`);
    }
    const blob = await verifiedObject(root, format, entry.id, 'blob');
    if (blob === undefined) return { absent: `the clone does not have the file ${path} of ${id} (a partial clone?)` };
    return { text: blob.toString('utf8') };
  }
  return { text: null };
}

/** A full SHA for a name (a tag, a branch), as the clone's refs say; undefined when they name none. */
async function resolveName(root: string, name: string): Promise<string | undefined> {
  if (name.startsWith('-')) return undefined;
  try {
    return (await git(root, ['rev-parse', '--verify', '--end-of-options', `${name}^{commit}`])).toString('utf8').trim();
  } catch {
    return undefined;
  }
}

/** The entry `name` of a raw tree object (`<mode> <name>\0<hash>` repeated). */
function treeEntry(tree: Buffer, name: string, format: Format): { mode: string; id: string } | undefined {
  const wanted = Buffer.from(name, 'utf8');
  let at = 0;
  while (at < tree.length) {
    const space = tree.indexOf(0x20, at);
    const nul = space < 0 ? -1 : tree.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 1 + format.bytes > tree.length) throw new TamperedObjectError('a tree object is malformed');
    const entryName = tree.subarray(space + 1, nul);
    if (entryName.equals(wanted)) return { mode: tree.subarray(at, space).toString('latin1'), id: tree.subarray(nul + 1, nul + 1 + format.bytes).toString('hex') };
    at = nul + 1 + format.bytes;
  }
  return undefined;
}
