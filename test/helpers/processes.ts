import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const fixture = (name: string) => resolve(ROOT, 'test/fixtures/servers', name);
export const example = (version: 'v1' | 'v2') => resolve(ROOT, 'examples/inventory', `${version}.mjs`);
/** The package's bin as package.json names it (lib/bundle/, built by the suite's global setup): what a user runs. */
export const PACKAGE_BIN = resolve(ROOT, (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['mcp-contract-guard'] as string);

/** True while any process of the group led by `pid` is alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The process group of a live process `pid`: a server started under a supervisor (containment.ts)
 * is in its supervisor's group, not the leader of one; read it while the process is alive.
 */
export function groupOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[2]);
}

/** Start an example server over HTTP on a free port; resolves once it listens. */
export async function startHttpServer(script: string, extraArgs: string[] = []): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [script, '--http', '0', ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let seen = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      seen += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolveUrl(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${seen}`)));
  });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once('exit', () => done());
      child.kill();
    });
  return { url, child, stop };
}

/**
 * A fixture server (test/fixtures/servers) started with `env` added, once its log (stdout or
 * stderr) says it listens; rejected if it exits first.
 */
export async function listeningFixture(name: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fixture(name)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const listens = (chunk: string) => chunk.includes('listening') && resolve();
    child.stdout!.setEncoding('utf8').on('data', listens);
    child.stderr!.setEncoding('utf8').on('data', listens);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it listened`)));
  });
  return child;
}

/** A port nothing listens on (taken from the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Command lines of running processes that mention `needle` (this test process excluded). */
export async function processesMentioning(needle: string): Promise<string[]> {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(needle) && !line.includes(' ps ') && !line.includes('vitest'))
    .map((line) => line.trim());
}

/**
 * The processes that still mention `needle` once none do, or after `ms`: a killed process takes
 * the kernel a moment to reap, and a busy machine many moments. The bound is far past that (it
 * costs nothing when met), so only a survivor fails the test that expects none.
 */
export async function processesLeft(needle: string, ms = 60_000): Promise<string[]> {
  for (const deadline = Date.now() + ms; ; await new Promise((done) => setTimeout(done, 50))) {
    const left = await processesMentioning(needle);
    if (left.length === 0 || Date.now() >= deadline) return left;
  }
}

/** How long starting a Node process takes on this machine now, to its first output (ms). */
export function nodeStartMs(): Promise<number> {
  return new Promise((done, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("up")'], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.once('error', reject);
    child.stdout.once('data', () => done(performance.now() - started));
    child.once('close', () => done(performance.now() - started));
  });
}

/**
 * A server timeout for a test that must wait one out (a server that never answers the channel
 * tried first): `idleMs`, or ten Node start-ups if the machine is busy enough now that starting
 * and stopping a server takes longer, so the wait never eats the rest of the start-up budget.
 */
export async function timeoutForThisMachine(idleMs: number): Promise<number> {
  return Math.max(idleMs, Math.ceil((10 * (await nodeStartMs())) / 100) * 100);
}
