import { shellQuote } from '../../compile/index.js';
import { CLI_COMMAND } from '../../version.js';
import { DEFAULT_UNUSED_DAYS, type FailOn } from '../../protocol/index.js';

/** How the CLI selects this server: source flags, or `--server NAME` of a config file. */
export interface CliSelection {
  /** e.g. `--command 'node dist/server.js'` or `--server inventory --config tools/guard.json`. */
  flags: string;
  /** `--lockfile PATH` when the lockfile is not where the CLI looks by default, else ''. */
  lockfileFlag: string;
  /** The directory (relative to the repository root) to run the commands from; '' for the root. */
  dir: string;
}

/** The one command that brings a stale lockfile up to date. */
export function lockCommand(selection: CliSelection): string {
  const cd = selection.dir === '' ? '' : `cd ${shellQuote(selection.dir)} && `;
  return `${cd}${CLI_COMMAND} lock ${selection.flags}${selection.lockfileFlag}`;
}

/**
 * Commands that redo this review on a laptop: fetch the base lockfile from git, lock the head
 * into a scratch file (or use the committed one), and diff the two with the same threshold.
 */
export function reproduceCommands(options: {
  selection: CliSelection;
  /** The lockfile's path from the repository root (what `git show REF:PATH` takes). */
  lockfileRepoPath: string;
  /** The lockfile's path from `selection.dir` (what the CLI takes). */
  lockfileLocalPath: string;
  baselineRef?: string;
  compile: boolean;
  failOn: FailOn;
  /** The usage summary the review was judged with: how to get it here (`fetch` lines, or none), and its `--usage` path. */
  usage?: { fetch: string[]; path: string; unusedDays: number };
}): string[] {
  const { selection } = options;
  const lines: string[] = [];
  if (selection.dir !== '') lines.push(`cd ${shellQuote(selection.dir)}`);
  const base = options.baselineRef !== undefined ? '/tmp/base.lock.json' : shellQuote(options.lockfileLocalPath);
  if (options.baselineRef !== undefined) lines.push(`git show ${shellQuote(`${options.baselineRef}:${options.lockfileRepoPath}`)} > ${base}`);
  let head = shellQuote(options.lockfileLocalPath);
  if (options.compile) {
    head = '/tmp/head.lock.json';
    lines.push(`${CLI_COMMAND} lock ${selection.flags} --lockfile ${head}`);
  }
  const failOn = options.failOn === 'never' ? '' : ` --fail-on ${options.failOn}`;
  const { usage } = options;
  if (usage !== undefined) lines.push(...usage.fetch);
  const judged = usage === undefined ? '' : ` --usage ${shellQuote(usage.path)}${usage.unusedDays === DEFAULT_UNUSED_DAYS ? '' : ` --unused-days ${usage.unusedDays}`}`;
  lines.push(`${CLI_COMMAND} diff ${base} ${head}${failOn}${judged}`);
  if (options.compile) lines.push(`${CLI_COMMAND} check ${selection.flags}${selection.lockfileFlag}`);
  return lines;
}
