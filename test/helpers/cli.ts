import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { ROOT } from './processes.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI as a process, the way a user or CI does. */
export function cli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [resolve(ROOT, 'lib/cli.js'), ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}
