/**
 * `--log FILE`: one JSON line per `tools/call` the proxy saw through, appended as it is decided.
 * Argument values stay out unless `--log-values`: they are the users' data. A log that cannot
 * be written is reported once and dropped; it never stops the session.
 */
import { createWriteStream, type WriteStream } from 'node:fs';

export type CallOutcome =
  /** Forwarded; the server answered without an error. */
  | 'passed'
  /** Forwarded; the server answered with an error the proxy left as it was. */
  | 'failed'
  /** Forwarded; the server rejected the arguments and its error was explained. */
  | 'explained'
  /** The arguments do not fit the current schema: answered by the proxy, never forwarded. */
  | 'blocked'
  /** A tool the artifact says was renamed or removed: answered by the proxy, never forwarded. */
  | 'moved'
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
  private readonly stream: WriteStream;
  private broken = false;

  constructor(
    path: string,
    private readonly withValues: boolean,
    warn: (message: string) => void,
  ) {
    this.stream = createWriteStream(path, { flags: 'a' });
    this.stream.on('error', (error) => {
      if (!this.broken) warn(`cannot write the call log ${path} (${error.message}); calls are no longer logged.`);
      this.broken = true;
    });
  }

  write(record: CallRecord, args: unknown): void {
    if (this.broken) return;
    const line = { time: new Date().toISOString(), ...record, ...(this.withValues ? { arguments: args ?? {} } : {}) };
    this.stream.write(`${JSON.stringify(line)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}
