/**
 * Where the release tests run what a stranger would: a shell whose npm has its default settings
 * (none of this machine's or this test run's `npm_*` variables), whose registry is the stand-in
 * serving the packed tarball (test/helpers/registry.ts), and whose cache is one of its own (so
 * `npx` installs the tarball of this run, never a copy an earlier run left).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

export { ROOT, WORK } from './paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The registry stand-in's URL. */
    registry: string;
    /** The packed tarball, and the name and version inside it. */
    tarball: string;
    version: string;
    /** npm's cache and user config for the stranger's shell. */
    npmCache: string;
    npmUserConfig: string;
  }
}

/** The environment of the stranger's shell. */
export function strangerEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(npm_|vitest|NODE_ENV$|INIT_CWD$)/i.test(name)) continue;
    env[name] = value;
  }
  // Only the system's own PATH: no node_modules/.bin of the checkout that started the tests.
  env.PATH = (process.env.PATH ?? '').split(':').filter((dir) => !dir.includes('node_modules')).join(':');
  return {
    ...env,
    npm_config_registry: inject('registry'),
    npm_config_cache: inject('npmCache'),
    npm_config_userconfig: inject('npmUserConfig'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ...extra,
  };
}

export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `script` with bash in `cwd`, as typed at a prompt (stdin closed: no terminal to answer). */
export function shell(script: string, cwd: string, env: Record<string, string> = strangerEnv()): Promise<ShellResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-o', 'pipefail', '-e', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
  });
}

const scratchDirs: string[] = [];

/**
 * A fresh scratch directory, outside the checkout: npm takes the nearest folder with a
 * package.json for the project, and inside this one (named mcp-contract-guard) `npx
 * mcp-contract-guard@…` would look for the package there instead of installing it.
 */
export function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mcg-release-${prefix}`));
  scratchDirs.push(dir);
  return dir;
}

/** Removes every scratch directory this test file made. */
export function removeScratch(): void {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A git repository with one commit of what is in `dir` (the user and no signing set locally). */
export function commitAll(dir: string, message: string): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
  if (!existsSync(join(dir, '.git'))) {
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'test@example.com');
    git('config', 'user.name', 'Test');
    git('config', 'commit.gpgsign', 'false');
  }
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '-m', message);
  return git('rev-parse', 'HEAD');
}
