/**
 * The runner's command files belong to the Action. The runner reads them once the step ends:
 * a line in GITHUB_OUTPUT sets an output, in GITHUB_ENV a later step's environment (NODE_OPTIONS,
 * LD_PRELOAD…), in GITHUB_PATH its PATH, and GITHUB_STEP_SUMMARY becomes the job's summary.
 * A server runs as the runner's user and can find them (the runner's environment, its
 * RUNNER_TEMP/_runner_file_commands layout), so the Action keeps a copy of each before any pull
 * request code starts, and once every server is stopped puts back any the code changed, before
 * it writes its own outputs: nothing the server wrote reaches the runner, and the step fails
 * naming the files.
 */
import { lstat, readFile, rm, writeFile } from 'node:fs/promises';
import { COMMAND_FILES, type CommandFile } from '../../protocol/index.js';

interface Kept {
  name: CommandFile;
  path: string;
  /** The file's bytes when the copy was taken; null when it did not exist. */
  bytes: Buffer | null;
  /** Its inode: a file replaced by another (or by a link) is a change even with the same bytes. */
  ino: number | null;
}

export interface CommandFileGuard {
  /**
   * Puts back every command file that changed since the copy, once: the names of those that
   * had. Later calls return the same names without looking again (the Action's own writes
   * come after the first).
   */
  restore(): Promise<CommandFile[]>;
}

/** A copy of each command file the environment names, taken now. */
export async function guardCommandFiles(env: NodeJS.ProcessEnv = process.env): Promise<CommandFileGuard> {
  const kept: Kept[] = [];
  for (const name of COMMAND_FILES) {
    const path = env[name];
    if (path === undefined || path === '') continue;
    const stat = await lstat(path).catch(() => undefined);
    kept.push({ name, path, bytes: stat ? await readFile(path) : null, ino: stat?.ino ?? null });
  }
  let changed: Promise<CommandFile[]> | undefined;
  return {
    restore: () => (changed ??= putBack(kept)),
  };
}

async function putBack(kept: Kept[]): Promise<CommandFile[]> {
  const changed: CommandFile[] = [];
  for (const file of kept) {
    const stat = await lstat(file.path).catch(() => undefined);
    const same = stat === undefined ? file.bytes === null : stat.isFile() && stat.ino === file.ino && file.bytes !== null && (await readFile(file.path)).equals(file.bytes);
    if (same) continue;
    changed.push(file.name);
    // Removed first: a file turned into a link must not have its target written through.
    await rm(file.path, { force: true, recursive: true });
    if (file.bytes !== null) await writeFile(file.path, file.bytes, { flag: 'wx' });
  }
  return changed;
}

/** What the step's failure says about the files a server wrote to: a pull request's, or a pinned third-party release (the watch mode). */
export function tamperingMessage(changed: readonly CommandFile[], server: 'pull-request' | 'pinned' = 'pull-request'): string {
  const files = changed.join(', ');
  const [who, advice] =
    server === 'pull-request'
      ? ['A server (code of this pull request)', 'review what this pull request runs before trusting anything it produced']
      : ['A pinned server, at the release the watch started,', 'do not pin that release before knowing why it did']
  return (
    `${who} wrote to the runner's command ${changed.length === 1 ? 'file' : 'files'} ${files}, ` +
    'which set step outputs, the environment and PATH of later steps, and the job summary. mcp-contract-guard put back what was there ' +
    `before the server started, so none of it takes effect; ${advice}.`
  );
}
