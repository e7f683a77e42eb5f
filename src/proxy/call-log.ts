/**
 * `--log FILE`: one JSON line per `tools/call` the proxy saw through, appended as it is decided.
 * The append is synchronous, before the answer it describes is sent: whoever reads the log after
 * seeing an answer finds its line (a line is a few hundred bytes; one `write` per call).
 * Argument values stay out unless `--log-values`: they are the users' data. A log that cannot
 * be written is reported once and dropped; it never stops the session.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

export type CallOutcome =
  /** Forwarded; the server answered without an error. */
  | 'passed'
  /** Forwarded under the names the artifact gives now (`--renames route`); the server answered without an error. */
  | 'routed'
  /** Forwarded; the server answered with an error the proxy left as it was. */
  | 'failed'
  /** Forwarded; the server rejected the arguments and its error was explained. */
  | 'explained'
  /** The arguments do not fit the current schema: answered by the proxy, never forwarded. */
  | 'blocked'
  /** A tool the artifact says was renamed or removed: answered by the proxy, never forwarded. */
  | 'moved'
  /** A tool the pin holds back (`--lockfile`): answered by the proxy, never forwarded. */
  | 'held'
  /** The client cancelled the call before the server answered. */
  | 'cancelled';

export interface CallRecord {
  tool: string;
  outcome: CallOutcome;
  /** The argument paths the error names (blocked, explained). */
  fields: readonly string[];
  /** From the request to the server's answer, for forwarded calls. */
  ms?: number;
}

export class CallLog {
  private fd: number | undefined;

  constructor(
    private readonly path: string,
    private readonly withValues: boolean,
    private readonly warn: (message: string) => void,
  ) {
    try {
      this.fd = openSync(path, 'a');
    } catch (error) {
      this.drop(error);
    }
  }

  write(record: CallRecord, args: unknown): void {
    if (this.fd === undefined) return;
    const line = { time: new Date().toISOString(), ...record, ...(this.withValues ? { arguments: args ?? {} } : {}) };
    try {
      writeSync(this.fd, `${JSON.stringify(line)}\n`);
    } catch (error) {
      this.drop(error);
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private drop(error: unknown): void {
    this.warn(`cannot write the call log ${this.path} (${(error as Error).message}); calls are no longer logged.`);
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already failing: the warning above is what the user needs.
      }
    }
  }
}
