import { relative } from 'node:path';
import { asUserError } from '../errors.js';
import type { CliArgs } from './args.js';

/** Where the CLI reads and writes: the process's, or a test's. */
export interface Io {
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTty: boolean;
}

/** Runs one command; resolves to its exit code. */
export type Runner = (args: CliArgs, io: Io) => Promise<number>;

/** What every command uses to talk to the user. */
export class CommandContext {
  constructor(
    readonly args: CliArgs,
    readonly io: Io,
  ) {}

  progress = (message: string): void => {
    if (!this.args.quiet) this.io.stderr(`› ${message}\n`);
  };

  warn(message: string): void {
    this.io.stderr(`warning: ${message}\n`);
  }

  /**
   * What accompanies a report (verdicts, advice): beside it on stdout in text, on stderr under
   * a machine format, so that stdout holds exactly the JSON, Markdown, XML or SARIF document.
   */
  tell(text: string): void {
    if (this.args.format === 'text') this.io.stdout(text);
    else this.io.stderr(text);
  }

  /** A path as the user would type it: relative to the working directory when inside it. */
  display(path: string): string {
    const rel = relative(this.io.cwd, path);
    return rel === '' || rel.startsWith('..') ? path : rel;
  }
}

/** One paragraph for the user; the stack only with --debug, or for what can only be a bug. */
export function formatError(error: unknown, debug: boolean): string {
  if (debug && error instanceof Error && error.stack) return `error: ${error.stack}`;
  const user = asUserError(error);
  if (user !== undefined) return `error: ${user.message}`;
  const message = error instanceof Error ? error.message : String(error);
  return `error: unexpected failure: ${message}\n(this is a bug in mcp-contract-guard; run again with --debug for the stack trace and report it)`;
}
