import type { Readable, Writable } from 'node:stream';
import { newEvidence, type AttemptEvidence } from '../compile/channel.js';
import { ServerProcess } from '../compile/process.js';

/**
 * Lines longer than this are relayed without being read (so never checked or explained): a
 * peer that never ends a line must not grow our memory. Far above any real tools/list or call.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface LaunchedServer {
  readonly process: ServerProcess;
  readonly evidence: AttemptEvidence;
  readonly input: Writable | null;
  readonly output: Readable | null;
  /** Resolves once the server is gone (or could not be started), saying how. */
  readonly gone: Promise<string>;
}

/**
 * Starts the server with compile's process handling (its own process group, stopped whole,
 * none left behind when we exit), its stdin and stdout left to the relay as raw byte streams
 * and its stderr passed straight through to ours. It inherits our environment.
 */
export function launchServer(command: readonly string[]): LaunchedServer {
  let done!: (how: string) => void;
  const gone = new Promise<string>((resolve) => (done = resolve));
  const evidence = newEvidence('stdio', command.join(' '));
  const server = new ServerProcess({ command: [...command], stdin: 'pipe', relay: true, onGone: done }, evidence);
  const { stdin, stdout } = server.streams;
  return { process: server, evidence, input: stdin, output: stdout, gone };
}

/** Runs `write` with both streams corked: the lines of one chunk leave in one write per direction. */
export function corked(streams: readonly (Writable | null)[], write: () => void): void {
  for (const stream of streams) stream?.cork();
  try {
    write();
  } finally {
    for (const stream of streams) stream?.uncork();
  }
}
