/**
 * Reading and writing the user's files (lockfiles, artifacts, dumps) with errors that say what
 * is wrong with which path, and writes that never leave half a file or a temporary one behind.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFile, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { UserError } from './errors.js';
import { withoutByteOrderMark } from './protocol/index.js';

/**
 * The text of a JSON file's bytes, decoded in one piece. `readFile(path, 'utf8')` decodes each
 * chunk as it arrives and joins the pieces into a rope, which every later read of the text
 * (a regex, a comparison, JSON.parse) must first copy flat: on a 5 MB lockfile, twice the time
 * of reading it.
 *
 * Windows writes JSON other ways than UTF-8: Notepad adds a byte order mark, and Windows
 * PowerShell's `>` and `Out-File` (the usual way to save a `tools/list` dump there) write
 * UTF-16 with one. The mark says the encoding and is not part of the text (`JSON.parse`
 * refuses it). Without a mark, UTF-16 shows in the first two bytes: JSON text starts with an
 * ASCII character, so one of them is zero (RFC 4627, section 3).
 */
export function decodedText(bytes: Buffer): string {
  const [first, second] = bytes;
  if ((first === 0xff && second === 0xfe) || (first !== 0 && second === 0)) return bytes.toString('utf16le', first === 0xff ? 2 : 0);
  if ((first === 0xfe && second === 0xff) || (first === 0 && second !== 0 && second !== undefined)) {
    // Node decodes UTF-16 only little-endian: swap each pair (a last odd byte is no character).
    const from = first === 0xfe ? 2 : 0;
    return Buffer.from(bytes.subarray(from, from + ((bytes.length - from) & ~1))).swap16().toString('utf16le');
  }
  return withoutByteOrderMark(bytes.toString('utf8'));
}

/**
 * The bytes of a file, read with node:fs's callback API: node:fs/promises, which the writers
 * below load when they run, brings readline, the file watchers and directory streams with it
 * (some 1.5 ms of a command that only reads, such as `diff`).
 */
const readBytes = promisify(readFile);

/** node:fs/promises, loaded by the first write. */
const fsPromises = () => import('node:fs/promises');

/** The text of `path`, or undefined when there is no such file. `what` names it in errors ("the lockfile"). */
export async function readTextIfExists(path: string, what: string): Promise<string | undefined> {
  try {
    return decodedText(await readBytes(path));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw new UserError(`Cannot read ${what} ${path}: ${problemOf(error, path)}`, 2, { cause: error });
  }
}

/**
 * Fail now, before any work, if `path` cannot be written: it is a directory, its directory
 * does not exist or is not writable. (The write itself still reports what this cannot foresee.)
 */
export async function assertWritable(path: string, what: string): Promise<void> {
  const fail = (error: unknown) => new UserError(`Cannot write ${what} ${path}: ${problemOf(error, path)}`, 2, { cause: error });
  const { access, constants, stat } = await fsPromises();
  const existing = await stat(path).catch((error: unknown) => {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw fail(error);
  });
  if (existing?.isDirectory()) throw fail(Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
  if (existing !== undefined && !existing.isFile()) return; // a device or a pipe: written in place
  const directory = dirname(resolve(path));
  await access(directory, constants.W_OK).catch((error: unknown) => {
    const code = codeOf(error);
    throw code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
      ? new UserError(`Cannot write ${what} ${path}: its directory ${directory} is not writable (${code}).`, 2, { cause: error })
      : fail(error);
  });
}

/** Temporary files being written, removed if the process exits (Ctrl-C) before their rename. */
const inFlight = new Set<string>();
let exitHook = false;

/**
 * Replace `path` with `text` atomically: write a temporary file beside it, then rename it over
 * the old one, so a reader never sees half a file. The temporary file is removed on any
 * failure. A symbolic link is followed (the file it points to is replaced, the link kept); a
 * device, a pipe or anything under /dev (`/dev/stdout`) is written in place.
 */
export async function writeTextAtomically(path: string, text: string, what: string): Promise<void> {
  const fail = (error: unknown) => new UserError(`Cannot write ${what} ${path}: ${problemOf(error, path)}`, 2, { cause: error });
  await assertWritable(path, what);
  const { realpath, rename, stat, unlink, writeFile } = await fsPromises();
  const target = await realpath(path).catch(() => resolve(path));
  const existing = await stat(target).catch(() => undefined);
  // /dev/stdout may resolve to the file the shell redirected to: replacing that file would
  // cut the process off from its own output.
  if ((existing !== undefined && !existing.isFile()) || resolve(path).startsWith('/dev/')) {
    // Appended: truncating /dev/stderr redirected to a file would erase what was logged there.
    await writeFile(target, text, { flag: 'a' }).catch((error: unknown) => {
      throw fail(error);
    });
    return;
  }
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => inFlight.forEach((file) => rmSync(file, { force: true })));
  }
  inFlight.add(temporary);
  try {
    // The new file keeps the old one's permissions.
    await writeFile(temporary, text, { flag: 'wx', ...(existing ? { mode: existing.mode & 0o7777 } : {}) });
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw fail(error);
  } finally {
    inFlight.delete(temporary);
  }
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** What went wrong, in words, ending with a full stop. */
function problemOf(error: unknown, path: string): string {
  switch (codeOf(error)) {
    case 'EISDIR':
      return 'it is a directory, not a file.';
    case 'ENOENT': {
      const directory = dirname(resolve(path));
      return existsSync(directory) ? `files cannot be created in ${directory}.` : `the directory ${directory} does not exist: create it first.`;
    }
    case 'ENOTDIR':
      return 'a part of the path is a file, not a directory.';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied.';
    case 'EROFS':
      return 'the file system is read-only.';
    case 'ENOSPC':
      return 'no space left on the device.';
    case 'ELOOP':
      return 'too many symbolic links (a loop?).';
    default:
      return `${error instanceof Error ? error.message : String(error)}.`;
  }
}
