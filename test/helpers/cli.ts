import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VERSION } from '../../src/version.js';
import { ROOT } from './processes.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI as a process, the way a user or CI does. */
export function cli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [resolve(ROOT, 'lib/cli.js'), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return ended(child);
}

/** What a child with piped stdout and stderr printed, and its exit code, once it has ended. */
function ended(child: ChildProcess): Promise<CliResult> {
  return new Promise((done, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

let npxStandIn: string | undefined;

/**
 * Runs a command line the CLI printed, verbatim, with bash in `cwd`, the built bin standing in
 * for the npx the line names: first on PATH, an `npx` that runs lib/cli.js for
 * `mcp-contract-guard@<this version>` and refuses any other package or version (exit 127, as a
 * shell says "command not found"), so a line that starts the CLI any other way fails here.
 */
export function runAsPrinted(line: string, cwd: string): Promise<CliResult> {
  if (npxStandIn === undefined) {
    npxStandIn = mkdtempSync(join(tmpdir(), 'mcg-npx-'));
    const spec = `mcp-contract-guard@${VERSION}`;
    const script = `#!/bin/sh\nif [ "$1" != '${spec}' ]; then echo "npx stand-in: only ${spec} is here, not $1" >&2; exit 127; fi\nshift\nexec '${process.execPath}' '${resolve(ROOT, 'lib/cli.js')}' "$@"\n`;
    writeFileSync(join(npxStandIn, 'npx'), script);
    chmodSync(join(npxStandIn, 'npx'), 0o755);
  }
  const child = spawn('bash', ['-c', line], { cwd, env: { ...process.env, NO_COLOR: '1', PATH: `${npxStandIn}:${process.env.PATH ?? ''}` }, stdio: ['ignore', 'pipe', 'pipe'] });
  return ended(child);
}

export interface CliRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number; peakRssKb: number }>;
  /** Resolves once the CLI has written `text` on stderr (its progress says what it is doing). */
  saysOnStderr: (text: string) => Promise<void>;
}

/**
 * Start the built CLI as a process (like `cli`), keeping the child so a test can follow its
 * stderr or signal it, and sampling its peak resident memory (VmHWM) until it ends. `through`
 * is a command the CLI is started by (`setpriv …` to run it as another user).
 */
export function startCli(args: string[], env: Record<string, string> = {}, through: string[] = []): CliRun {
  const started = Date.now();
  const argv = [...through, process.execPath, resolve(ROOT, 'lib/cli.js'), ...args];
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let peakRssKb = 0;
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const saysOnStderr = (text: string) =>
    new Promise<void>((said, never) => {
      const check = () => {
        if (!stderr.includes(text)) return;
        child.stderr!.off('data', check);
        said();
      };
      child.stderr!.on('data', check);
      child.once('close', () => never(new Error(`the CLI ended without saying ${JSON.stringify(text)} on stderr:\n${stderr}`)));
      check();
    });
  const sampler = setInterval(() => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (match) peakRssKb = Math.max(peakRssKb, Number(match[1]));
    } catch {
      // Gone.
    }
  }, 100);
  const done = new Promise<Awaited<CliRun['done']>>((settle) =>
    child.once('close', (code, signal) => {
      clearInterval(sampler);
      settle({ code, signal, stdout, stderr, ms: Date.now() - started, peakRssKb });
    }),
  );
  return { child, done, saysOnStderr };
}
