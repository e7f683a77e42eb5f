import type { Readable, Writable } from 'node:stream';
import { newEvidence } from '../compile/channel.js';
import { ServerProcess } from '../compile/process.js';

/**
 * Lines longer than this are relayed without being read (so never checked or explained): a
 * peer that never ends a line must not grow our memory. Far above any real tools/list or call.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * The server side of a relay: byte streams in and out, whatever carries them (a child process's
 * stdio, or POSTs to a streamable HTTP server, see http-upstream.ts).
 */
export interface Upstream {
  readonly input: Writable | null;
  readonly output: Readable | null;
  /** Resolves once the server is gone (or could not be reached or started), saying how. */
  readonly gone: Promise<string>;
  /** Ends the server (or its session). Never throws; safe to call twice. */
  stop(): Promise<void>;
  /** Once gone: 2 when the server could not be started, else its exit code (1 when killed). */
  exitCode(): number;
  /** True when the server could not be started at all. */
  startFailed(): boolean;
}

/**
 * Starts the server with compile's process handling (its own process group, stopped whole,
 * none left behind when we exit), its stdin and stdout left to the relay as raw byte streams
 * and its stderr passed straight through to ours. It inherits our environment.
 */
export function launchServer(command: readonly string[]): Upstream {
  let done!: (how: string) => void;
  const gone = new Promise<string>((resolve) => (done = resolve));
  const evidence = newEvidence('stdio', command.join(' '));
  const server = new ServerProcess({ command: [...command], stdin: 'pipe', relay: true, launcher: true, onGone: done }, evidence);
  const { stdin, stdout } = server.streams;
  return {
    input: stdin,
    output: stdout,
    gone,
    stop: () => server.stop(),
    exitCode: () => (evidence.spawnErrorCode !== undefined ? 2 : typeof evidence.exitCode === 'number' ? evidence.exitCode : 1),
    startFailed: () => evidence.spawnErrorCode !== undefined,
  };
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
