/**
 * No server outlives us: not when a capture ends, not when the CLI or the Action is cancelled,
 * not even a descendant that started a session of its own (setsid) and ignores SIGTERM.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAction } from '../action/harness.js';
import { fixture, processesMentioning } from '../helpers/processes.js';
import { startCli } from '../helpers/cli.js';
import { actionPushes, alive, fileText, waitFor } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcg-life-'));
let runs = 0;
/** A pid file of its own per test: its path also tags the server's command line. */
const pidFile = () => join(dir, `daemon-${++runs}.pid`);
const escapes = (file: string, then = '') => `node ${fixture('escapes-session.mjs')} ${file}${then}`;

async function expectNoSurvivor(file: string): Promise<void> {
  const daemon = Number(readFileSync(file, 'utf8'));
  // SIGKILL is delivered at once, but the kernel takes a moment to turn the process into a zombie.
  await waitFor(`daemon ${daemon} to die`, () => (alive(daemon) ? undefined : true));
  expect(await processesMentioning(file)).toEqual([]);
}

describe('the CLI', () => {
  it('a failed capture stops the server and the daemon it started in its own session', async () => {
    const file = pidFile();
    // The server fails once its daemon is up, however long that takes on a busy machine.
    const run = startCli(['compile', '--command', escapes(file, ' --then-refuse'), '--no-heal']);
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the database is gone');
    await expectNoSurvivor(file);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s during start-up: exits %i and leaves no survivor', async (signal, code) => {
    const file = pidFile();
    const run = startCli(['compile', '--command', escapes(file), '--timeout', '30']);
    await waitFor('the daemon pid', () => fileText(file));
    run.child.kill(signal);
    const result = await run.done;
    expect(result.code).toBe(code);
    await expectNoSurvivor(file);
  });
});

describe('the Action', () => {
  const push = actionPushes();

  it('SIGTERM during start-up (a cancelled job): exits 143 and leaves no survivor', async () => {
    const file = pidFile();
    const { child, done } = startAction({
      ...push(),
      inputs: { command: escapes(file), timeout: '30', comment: 'never' },
    });
    await waitFor('the daemon pid', () => fileText(file));
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code).toBe(143);
    await expectNoSurvivor(file);
  });
});
