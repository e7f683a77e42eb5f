import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { EVIDENCE_LINE_CHARS, MAX_MESSAGE_BYTES, noteLogLine, type AttemptEvidence } from './channel.js';
import { containmentPlan, resolveProgram, type Containment } from './containment.js';
import { serverEnvironment, type EnvRequest } from './env.js';
import type { Readable, Writable } from 'node:stream';

/** How to start a server: what the command sources of a config, the flags or the Action give. */
export interface Launch extends EnvRequest {
  /** argv: the program, then its arguments. Run without a shell. */
  command: string[];
  cwd?: string;
}

export interface ProcessOptions extends Launch {
  /** 'pipe' for stdio servers (we talk on stdin), 'ignore' for servers reached over HTTP. */
  stdin: 'pipe' | 'ignore';
  /**
   * Each complete stdout line, when stdout carries protocol messages; without it, stdout is a
   * log like stderr. A line is read up to `MAX_MESSAGE_BYTES`.
   */
  onStdoutLine?: (line: string) => void;
  /** A stdout line grew past `MAX_MESSAGE_BYTES`: the rest of it is dropped, the capture cannot go on. */
  onOversizedLine?: (message: string) => void;
  /** Called once, when the process is gone and its output drained (or could not start). */
  onGone?: (how: string) => void;
  /**
   * The caller relays the server's stdio byte for byte (the proxy): stdin and stdout are left
   * to it (`streams`), and stderr goes straight to ours instead of into the evidence.
   */
  relay?: boolean;
}

/** The stderr tail kept for diagnosis: the last lines carry the error, a flood is dropped. */
const STDERR_LINES = 40;
/** Stdout lines that were not protocol (a banner, logs on the wrong stream): a few show the pattern. */
export const STRAY_STDOUT_LINES = 20;
/** Of a log line, evidence keeps `EVIDENCE_LINE_CHARS` characters: at most 4 UTF-8 bytes each. */
const LOG_LINE_BYTES = EVIDENCE_LINE_CHARS * 4;
/** How long a server gets to exit after SIGTERM before it is killed. */
const GRACE_MS = 1500;
/** What the supervisor gets beyond the grace to kill the rest of the tree and exit. */
const SUPERVISOR_MARGIN_MS = 6000;

/**
 * Every server process gets this variable, with a value of its own. Its descendants inherit it
 * even when they start their own session (setsid, `detached`) and leave the process group, or
 * are re-parented when their parent dies; on Linux, /proc/PID/environ shows it. It is the net
 * under the containment (containment.ts) that holds whatever the server does; with only a
 * process group, it is what finds a descendant that left the group but kept its environment.
 */
export const SERVER_MARKER_NAME = 'MCP_CONTRACT_GUARD_SERVER';
/** Servers started by this process so far: with its pid, what makes each marker its own. */
let started = 0;

/**
 * A marker value no other server's has: this process's id and a count tell apart every server
 * started while it runs, the time and a random part those of processes long gone. It is no
 * secret (a server may read its own environment): it only has to find the server's processes,
 * and a UUID would load node:crypto (some 4 ms) before the proxy can start its server.
 */
function newMarker(): string {
  return `${process.pid}-${++started}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * A tree sweep repeats while it finds marked processes: one forking while we kill it leaves
 * children the next round finds. Each round kills a generation; real servers have two or three.
 */
const MAX_SWEEP_ROUNDS = 10;

/** Every server whose tree may still be running, so none outlives us, even on SIGINT/SIGTERM. */
const live = new Set<ServerProcess>();
process.once('exit', () => {
  for (const server of live) server.killTree();
});

/**
 * A server started for one capture attempt. Records what a diagnosis needs into `evidence`
 * (spawn error, exit code or signal, the stderr tail, where its log says it listens) without
 * holding more than a bounded amount of its output, and stops its whole process tree on
 * `stop()`, so wrappers like npx or sh, and daemons it starts, never outlive the attempt.
 */
export class ServerProcess {
  private readonly child: ChildProcess;
  private readonly marker = newMarker();
  /** What holds the server's whole tree; undefined when it was started as it is (it cannot start). */
  readonly containment: Containment | undefined;
  /** Resolves when the process has exited (or could not start). */
  private readonly exited: Promise<void>;
  /** Resolves when, in addition, its output is drained: the evidence is complete. */
  private readonly gone: Promise<void>;
  private stopping = false;
  private readonly stdout: LineSplitter;
  private readonly stderr: LineSplitter;

  constructor(
    options: ProcessOptions,
    private readonly evidence: AttemptEvidence,
  ) {
    const env: Record<string, string> = { ...serverEnvironment(process.env, options), [SERVER_MARKER_NAME]: this.marker };
    // A command that cannot start is spawned as it is: its error (ENOENT, EACCES) is the diagnosis.
    const plan = containmentPlan(options.launcher ? 'subreaper' : undefined);
    const startable = plan.containment === 'process-group' || resolveProgram(options.command[0] as string, env.PATH, options.cwd ?? process.cwd()) !== undefined;
    this.containment = startable ? plan.containment : undefined;
    const [program, ...args] = startable ? plan.wrap(options.command, GRACE_MS) : options.command;
    evidence.containment = this.containment;
    // detached: the server (with its supervisor) leads its own process group, so stop() reaches its children too.
    this.child = spawn(program as string, args, {
      cwd: options.cwd,
      env,
      // fd 3: the supervisor names the processes it could not stop.
      stdio: [options.stdin, 'pipe', options.relay ? 'inherit' : 'pipe', ...(this.supervised ? (['pipe'] as const) : [])],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    const report = this.child.stdio[3] as Readable | null | undefined;
    report?.setEncoding('utf8');
    let reported = '';
    report?.on('data', (chunk: string) => {
      reported = (reported + chunk).slice(-64 * 1024);
      for (let newline = reported.indexOf('\n'); newline >= 0; newline = reported.indexOf('\n')) {
        const line = reported.slice(0, newline);
        reported = reported.slice(newline + 1);
        const survivor = /^survivor (\d+) (.*)$/.exec(line);
        if (survivor && evidence.survivors.length < 20) evidence.survivors.push(`${survivor[1]} (${(survivor[2] ?? '').slice(0, 200)})`);
      }
    });
    report?.on('error', () => {});
    live.add(this);
    evidence.pid = this.child.pid;
    const onMessage = options.onStdoutLine;
    const oversized = `the server wrote more than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB on one stdout line (a flood, not a message); capture stopped`;
    this.stdout = onMessage
      ? new LineSplitter(
          MAX_MESSAGE_BYTES,
          (line) => {
            if (line.trim() !== '') onMessage(line);
          },
          () => options.onOversizedLine?.(oversized),
        )
      : new LineSplitter(LOG_LINE_BYTES, (line) => this.log(evidence.strayStdout, STRAY_STDOUT_LINES, line));
    this.stderr = new LineSplitter(LOG_LINE_BYTES, (line) => this.log(evidence.stderrTail, STDERR_LINES, line));
    this.gone = new Promise((resolve) => {
      this.child.once('error', (error: NodeJS.ErrnoException) => {
        evidence.spawnErrorCode = error.code ?? 'UNKNOWN';
        live.delete(this);
        options.onGone?.(`could not be started: ${error.message}`);
        resolve();
      });
      // 'close' comes after stdout and stderr are drained: the stderr tail is complete.
      this.child.once('close', (code, signal) => {
        this.stderr.end();
        this.stdout.end();
        options.onGone?.(signal ? `was killed by ${signal}` : `exited with code ${code}`);
        resolve();
      });
    });
    this.exited = Promise.race([new Promise<void>((resolve) => this.child.once('exit', () => resolve())), this.gone]);
    this.child.once('exit', (code, signal) => {
      // Our own stop() is not the server's doing: it must not read as a crash.
      if (this.stopping) return;
      evidence.exitCode = code;
      evidence.signal = signal;
    });
    if (!options.relay) {
      this.child.stdout?.on('data', (chunk: Buffer) => this.stdout.push(chunk));
      this.child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    }
    // A server that exits early closes its stdin; the EPIPE that follows says less than its exit.
    this.child.stdin?.on('error', () => {});
  }

  /** A supervisor stands between us and the server (containment.ts). */
  private get supervised(): boolean {
    return this.containment === 'pid-namespace' || this.containment === 'subreaper';
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
      // A supervisor passes SIGTERM on to the whole tree, waits the grace, kills what is left, then exits.
      this.signalTree('SIGTERM');
      await within(this.exited, GRACE_MS + (this.supervised ? SUPERVISOR_MARGIN_MS : 0));
    }
    // What is left (the server past its grace, children in its group or in sessions of their own) is killed.
    this.killTree();
    // Output drains once the tree is gone; a descendant we cannot reach (no /proc) may hold the
    // pipes open: then let go of our ends, so they do not keep this process alive.
    await within(this.gone, GRACE_MS);
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    live.delete(this);
  }

  /** SIGKILL the whole tree, synchronously (it also runs in the 'exit' hook). */
  killTree(): void {
    if (this.evidence.spawnErrorCode !== undefined) return;
    // A subreaper killed first would leave its tree to init: it is asked to kill it at once, and waited for.
    if (this.containment === 'subreaper' && this.running && this.child.pid !== undefined) {
      try {
        process.kill(this.child.pid, 'SIGUSR1');
        waitUntilGone(this.child.pid, SUPERVISOR_MARGIN_MS);
      } catch {
        // Already gone.
      }
    }
    // In a namespace, killing its init (through unshare's --kill-child) kills everything inside.
    killGroup(this.child, 'SIGKILL');
    for (let round = 0; round < MAX_SWEEP_ROUNDS && signalMarked(this.marker, 'SIGKILL') > 0; round++);
  }

  private signalTree(signal: NodeJS.Signals): void {
    killGroup(this.child, signal);
    signalMarked(this.marker, signal);
  }

  private log(list: string[], max: number, line: string): void {
    if (line.trim() !== '') noteLogLine(this.evidence, list, line, max);
  }
}

/**
 * Splits a byte stream into lines, holding at most `limit` bytes of the line in progress: a
 * longer line is cut there (its end is dropped) and `onTooLong` is told once. Bytes are decoded
 * only once a line is complete, so a character split across chunks stays whole.
 */
class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private tooLong = false;

  constructor(
    private readonly limit: number,
    private readonly onLine: (line: string) => void,
    private readonly onTooLong?: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.keep(chunk.subarray(start, newline));
      this.end();
      start = newline + 1;
    }
    this.keep(chunk.subarray(start));
  }

  /** The line in progress is complete (a newline, or the end of the stream). */
  end(): void {
    if (this.size === 0 && !this.tooLong) return;
    const { parts, tooLong } = this;
    this.parts = [];
    this.size = 0;
    this.tooLong = false;
    // A message cut short is not a message: only a log line is worth its head.
    if (tooLong && this.onTooLong) return;
    const line = Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
    this.onLine(tooLong ? `${line}…` : line);
  }

  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const room = this.limit - this.size;
    if (bytes.length > room) {
      if (!this.tooLong) this.onTooLong?.();
      this.tooLong = true;
    }
    const kept = bytes.length > room ? bytes.subarray(0, Math.max(room, 0)) : bytes;
    if (kept.length === 0) return;
    // Copied: a slice would pin the whole read buffer it came from (often several times its size).
    this.parts.push(Buffer.from(kept));
    this.size += kept.length;
  }
}

/** Wait for `promise`, at most `ms` (the timer does not outlive the wait). */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
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

/**
 * Block until process `pid` is gone or a zombie, at most `ms`: the 'exit' hook cannot wait for
 * events. Atomics.wait sleeps without spinning.
 */
function waitUntilGone(pid: number, ms: number): void {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (const deadline = Date.now() + ms; Date.now() < deadline; Atomics.wait(sleeper, 0, 0, 10)) {
    try {
      if (readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').startsWith('Z')) return;
    } catch {
      return;
    }
  }
}

/** Signal every process whose environment carries `marker` (Linux); how many were signalled. */
function signalMarked(marker: string, signal: NodeJS.Signals): number {
  if (process.platform !== 'linux') return 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  const needle = `${SERVER_MARKER_NAME}=${marker}\0`;
  let signalled = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      // Another user's process, or one gone meanwhile, cannot be read: it is not ours.
      if (!readFileSync(`/proc/${entry}/environ`).includes(needle)) continue;
      process.kill(Number(entry), signal);
      signalled++;
    } catch {
      // Gone, or not ours.
    }
  }
  return signalled;
}
