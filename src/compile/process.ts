import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { pushBounded, type AttemptEvidence } from './channel.js';

export interface ProcessOptions {
  /** argv: the program, then its arguments. Run without a shell. */
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** 'pipe' for stdio servers (we talk on stdin), 'ignore' for servers reached over HTTP. */
  stdin: 'pipe' | 'ignore';
  /** Each complete stdout line; without it, stdout lines are recorded as stray output. */
  onStdoutLine?: (line: string) => void;
  /** Called once, when the process is gone and its output drained (or could not start). */
  onGone?: (how: string) => void;
  /**
   * The caller relays the server's stdio byte for byte (the proxy): stdin and stdout are left
   * to it (`streams`), and stderr goes straight to ours instead of into the evidence.
   */
  relay?: boolean;
}

const STDERR_LINES = 40;
const STRAY_LINES = 20;
/** How long a server gets to exit after SIGTERM before it is killed. */
const GRACE_MS = 1500;

/** Every live server process, so none outlives us even if a caller forgets `stop()`. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

/**
 * A server started for one capture attempt. Records what a diagnosis needs into `evidence`
 * (spawn error, exit code or signal, the stderr tail) and stops the whole process group on
 * `stop()`, so wrappers like npx or sh never leave the real server running.
 */
export class ServerProcess {
  private readonly child: ChildProcess;
  private readonly gone: Promise<void>;
  private stopping = false;
  private stdoutBuffer = '';
  private stderrBuffer = '';

  constructor(
    private readonly options: ProcessOptions,
    private readonly evidence: AttemptEvidence,
  ) {
    const [program, ...args] = options.command;
    // detached: the server leads its own process group, so stop() reaches its children too.
    this.child = spawn(program as string, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: [options.stdin, 'pipe', options.relay ? 'inherit' : 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    live.add(this.child);
    evidence.pid = this.child.pid;
    this.gone = new Promise((resolve) => {
      this.child.once('error', (error: NodeJS.ErrnoException) => {
        evidence.spawnErrorCode = error.code ?? 'UNKNOWN';
        live.delete(this.child);
        options.onGone?.(`could not be started: ${error.message}`);
        resolve();
      });
      // 'close' comes after stdout and stderr are drained: the stderr tail is complete.
      this.child.once('close', (code, signal) => {
        this.flush();
        options.onGone?.(signal ? `was killed by ${signal}` : `exited with code ${code}`);
        resolve();
      });
    });
    this.child.once('exit', (code, signal) => {
      live.delete(this.child);
      // Our own stop() is not the server's doing: it must not read as a crash.
      if (this.stopping) return;
      evidence.exitCode = code;
      evidence.signal = signal;
    });
    if (!options.relay) {
      this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.onStdout(chunk));
      this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => this.onStderr(chunk));
    }
    // A server that exits early closes its stdin; the EPIPE that follows says less than its exit.
    this.child.stdin?.on('error', () => {});
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && this.evidence.spawnErrorCode === undefined;
  }

  /** The server's stdin and stdout, for a caller that relays them (`relay`). */
  get streams(): { stdin: Writable | null; stdout: Readable | null } {
    return { stdin: this.child.stdin, stdout: this.child.stdout };
  }

  write(text: string): void {
    this.child.stdin?.write(text);
  }

  /** Stop the server and everything it started. Never throws; safe to call twice. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.running) {
      this.child.stdin?.end();
      killGroup(this.child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(this.child, 'SIGKILL'), GRACE_MS);
      await this.gone;
      clearTimeout(timer);
    }
    // The server may have left children of its own running in its group.
    if (this.evidence.spawnErrorCode === undefined) killGroup(this.child, 'SIGKILL');
    live.delete(this.child);
  }

  private onStdout(chunk: string): void {
    this.stdoutBuffer += chunk;
    let newline: number;
    while ((newline = this.stdoutBuffer.indexOf('\n')) >= 0) {
      const line = this.stdoutBuffer.slice(0, newline).replace(/\r$/, '');
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    if (this.options.onStdoutLine) this.options.onStdoutLine(line);
    else pushBounded(this.evidence.strayStdout, line, STRAY_LINES);
  }

  private onStderr(chunk: string): void {
    this.stderrBuffer += chunk;
    const lines = this.stderrBuffer.split('\n');
    this.stderrBuffer = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') pushBounded(this.evidence.stderrTail, line.replace(/\r$/, ''), STDERR_LINES);
  }

  private flush(): void {
    if (this.stderrBuffer.trim() !== '') pushBounded(this.evidence.stderrTail, this.stderrBuffer, STDERR_LINES);
    this.stderrBuffer = '';
    this.onLine(this.stdoutBuffer);
    this.stdoutBuffer = '';
  }
}

export const STRAY_STDOUT_LINES = STRAY_LINES;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}
