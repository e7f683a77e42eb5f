import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { GitHubMock } from '../action/github-mock.js';
import { GitRepo, removeScratch, type RunOptions } from '../action/harness.js';

/** Whether `pid` is a live process (a zombie, killed but not yet reaped, is not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Poll `check` every 50 ms until it returns a value, or fail after `timeoutMs`: a bound on
 * something that happens promptly, far past what a busy machine takes (it costs nothing when met).
 */
export async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

export const fileText = (path: string) => (existsSync(path) && readFileSync(path, 'utf8') !== '' ? readFileSync(path, 'utf8') : undefined);

/** Something listening on a loopback port of its own (not an MCP server). */
export async function occupyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer((socket) => socket.on('error', () => {}).end('HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\nnot your mcp'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}

/**
 * For a describe block that runs the Action: a local GitHub API for the file's tests, and a
 * push to a fresh repository (no base to compare with: the run only starts the server).
 */
export function actionPushes(): () => Omit<RunOptions, 'inputs' | 'env'> {
  let mock: GitHubMock;
  beforeAll(async () => {
    mock = await new GitHubMock().start();
  });
  afterAll(async () => {
    await mock.stop();
    removeScratch();
  });
  return () => {
    const repo = new GitRepo();
    const sha = repo.commit({ 'README.md': 'server' });
    const payload = { ref: 'refs/heads/main', before: '0'.repeat(40), after: sha, repository: { full_name: 'acme/tools' } };
    return { workspace: repo.dir, event: 'push', payload, apiUrl: mock.url, sha };
  };
}
