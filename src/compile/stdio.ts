import { spawn, type ChildProcess } from 'node:child_process';
import type { JsonObject } from '../contract/model.js';
import { isJsonObject } from '../contract/model.js';
import {
  ChannelError,
  JSONRPC_METHOD_NOT_FOUND,
  RpcError,
  newEvidence,
  pushBounded,
  type AttemptEvidence,
  type RequestOptions,
  type RpcChannel,
} from './channel.js';

export interface StdioOptions {
  /** argv: the program, then its arguments. Run without a shell. */
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
}

const STDERR_LINES = 40;
const STRAY_LINES = 20;
/** How long a server gets to exit after SIGTERM before it is killed. */
const GRACE_MS = 1500;

/** Every live server process, so none outlives us even if the caller forgets `close()`. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

interface Pending {
  method: string;
  resolve: (result: JsonObject) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** Newline-delimited JSON-RPC over a child process's stdin/stdout (the MCP stdio transport). */
export class StdioChannel implements RpcChannel {
  readonly evidence: AttemptEvidence;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stdoutBuffer = '';
  private stderrBuffer = '';
  private failure: ChannelError | undefined;
  /** Set once we stop the server, so its exit is not mistaken for a crash. */
  private closing = false;
  private readonly exited: Promise<void>;

  constructor(options: StdioOptions) {
    const [program, ...args] = options.command;
    this.evidence = newEvidence('stdio', options.command.join(' '));
    // detached: the server gets its own process group, so close() also stops what it spawned
    // (npx → node, sh → python…) instead of orphaning grandchildren.
    this.child = spawn(program as string, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    live.add(this.child);
    this.evidence.pid = this.child.pid;
    this.exited = new Promise((resolve) => {
      this.child.once('close', () => resolve());
      this.child.once('error', () => resolve());
    });
    this.child.once('error', (error: NodeJS.ErrnoException) => {
      this.evidence.spawnErrorCode = error.code ?? 'UNKNOWN';
      live.delete(this.child);
      this.fail(new ChannelError('spawn', `could not start "${program}": ${error.message}`));
    });
    this.child.once('exit', (code, signal) => {
      if (!this.closing) {
        this.evidence.exitCode = code;
        this.evidence.signal = signal;
      }
      live.delete(this.child);
    });
    // 'close' fires after stdout/stderr are drained, so the stderr tail is complete by then.
    this.child.once('close', (code, signal) => {
      this.flushStderr();
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.fail(new ChannelError('exited', `the server ${how}`));
    });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.onStdout(chunk));
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => this.onStderr(chunk));
    // A server that exits early closes its stdin; writes then fail with EPIPE, which the
    // 'close' handler already reports better.
    this.child.stdin?.on('error', () => {});
  }

  request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.evidence.timedOutOn = method;
        reject(new ChannelError('timeout', `the server did not answer ${method} within ${options.timeoutMs / 1000} s`, method));
      }, options.timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      this.write({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    });
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    if (!this.failure) this.write({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.child.exitCode === null && this.child.signalCode === null && !this.evidence.spawnErrorCode) {
      this.child.stdin?.end();
      killGroup(this.child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(this.child, 'SIGKILL'), GRACE_MS);
      await this.exited;
      clearTimeout(timer);
    }
    // The server may have left children of its own running in its group: stop them too.
    if (!this.evidence.spawnErrorCode) killGroup(this.child, 'SIGKILL');
    live.delete(this.child);
    this.fail(new ChannelError('exited', 'the channel was closed'));
  }

  private write(message: JsonObject): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  private onStdout(chunk: string): void {
    this.stdoutBuffer += chunk;
    let newline: number;
    while ((newline = this.stdoutBuffer.indexOf('\n')) >= 0) {
      const line = this.stdoutBuffer.slice(0, newline).replace(/\r$/, '');
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      if (line.trim() !== '') this.onLine(line);
    }
  }

  private onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (!isJsonObject(message) || message.jsonrpc !== '2.0') {
      pushBounded(this.evidence.strayStdout, line, STRAY_LINES);
      return;
    }
    this.evidence.spokeJsonRpc = true;
    if ('method' in message) {
      this.answerServerRequest(message);
      return;
    }
    const pending = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (!pending) return;
    this.pending.delete(message.id as number);
    clearTimeout(pending.timer);
    if (isJsonObject(message.error)) {
      const { code, message: text, data } = message.error;
      pending.reject(new RpcError(pending.method, typeof code === 'number' ? code : 0, String(text ?? 'unknown error'), data));
    } else if (isJsonObject(message.result)) {
      pending.resolve(message.result);
    } else {
      pending.reject(new ChannelError('protocol', `the answer to ${pending.method} has no result object`, pending.method));
    }
  }

  /** We declare no client capabilities, so the only server request worth answering is ping. */
  private answerServerRequest(message: JsonObject): void {
    if (message.id === undefined) return;
    if (message.method === 'ping') this.write({ jsonrpc: '2.0', id: message.id, result: {} });
    else this.write({ jsonrpc: '2.0', id: message.id, error: { code: JSONRPC_METHOD_NOT_FOUND, message: 'Method not found' } });
  }

  private onStderr(chunk: string): void {
    this.stderrBuffer += chunk;
    const lines = this.stderrBuffer.split('\n');
    this.stderrBuffer = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') pushBounded(this.evidence.stderrTail, line.replace(/\r$/, ''), STDERR_LINES);
  }

  private flushStderr(): void {
    if (this.stderrBuffer.trim() !== '') pushBounded(this.evidence.stderrTail, this.stderrBuffer, STDERR_LINES);
    this.stderrBuffer = '';
    if (this.stdoutBuffer.trim() !== '') this.onLine(this.stdoutBuffer);
    this.stdoutBuffer = '';
  }

  private fail(error: ChannelError): void {
    this.failure ??= error;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(new ChannelError(error.failure, error.message, pending.method));
    }
  }
}

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
